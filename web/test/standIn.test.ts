import { describe, expect, it } from "vitest";
import type { GameDetail } from "../src/api";
import { apiPath, ownReclaimUrl } from "../src/standIn";

type Timer = GameDetail["timer"];
type TimerSeat = Timer["seats"][number];

const URL = "/api/v1/games/7/seat/reclaim/";

function seat(index: number, standIn: boolean): TimerSeat {
  return {
    index,
    timeouts: standIn ? 3 : 0,
    stand_in: standIn,
    reclaim_url: standIn ? URL : null,
    reconnect_until: standIn ? "2026-11-29T10:05:00Z" : null,
  };
}

function game(yourSeat: number | null, standIns: number[], status: GameDetail["status"] = "active"): Pick<GameDetail, "status" | "your_seat" | "timer"> {
  return {
    status,
    your_seat: yourSeat,
    timer: { seats: [0, 1, 2, 3].map((i) => seat(i, standIns.includes(i))) } as Timer,
  };
}

describe("ownReclaimUrl", () => {
  it("is the viewer's seat's reclaim_url while a stand-in plays it", () => {
    expect(ownReclaimUrl(game(2, [2]))).toBe(URL);
    expect(ownReclaimUrl(game(0, [1, 0, 3]))).toBe(URL);
  });

  it("is null for another seat's stand-in, a spectator, no stand-in", () => {
    expect(ownReclaimUrl(game(0, [1, 3]))).toBeNull();
    expect(ownReclaimUrl(game(null, [0, 1, 2, 3]))).toBeNull();
    expect(ownReclaimUrl(game(1, []))).toBeNull();
  });

  it("is null once the game is no longer played", () => {
    expect(ownReclaimUrl(game(2, [2], "finished"))).toBeNull();
    expect(ownReclaimUrl(game(2, [2], "abandoned"))).toBeNull();
  });

  it("is null without seats in the timer", () => {
    expect(ownReclaimUrl({ status: "active", your_seat: 0, timer: { seats: [] } as unknown as Timer })).toBeNull();
  });
});

describe("apiPath", () => {
  it("takes the API prefix and any origin off", () => {
    expect(apiPath(URL)).toBe("/games/7/seat/reclaim/");
    expect(apiPath(`https://canasta.example${URL}`)).toBe("/games/7/seat/reclaim/");
    expect(apiPath(`/prefix${URL}`)).toBe("/games/7/seat/reclaim/");
  });

  it("leaves a path of the API as it is", () => {
    expect(apiPath("/games/7/seat/reclaim/")).toBe("/games/7/seat/reclaim/");
  });
});
