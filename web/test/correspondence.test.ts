import { describe, expect, it } from "vitest";
import type { MyGame, PauseView } from "../src/api";
import {
  CORRESPONDENCE_TURNS,
  durationText,
  isCorrespondence,
  myGameRow,
  myGamesOrder,
  myGamesSummary,
  pauseControls,
  pauseFactText,
  serverClock,
  timeLeftText,
  TURN_SECONDS_MAX,
  turnLimitText,
} from "../src/correspondence";
import { describe as describeEvent } from "../src/replay";

const NOW = Date.parse("2026-11-23T00:00:00Z");
const HOUR = 3600;
const DAY = 86400;
const at = (seconds: number) => new Date(NOW + seconds * 1000).toISOString();

function game(over: Partial<MyGame> = {}): MyGame {
  return {
    game_id: 1,
    preset: "classic",
    status: "active",
    rated: false,
    seat: 0,
    my_turn: false,
    to_act: 1,
    turn_deadline: null,
    turn_seconds: 3 * DAY,
    paused: false,
    players: [
      { seat: 0, player_id: 7, display_name: "Ada", bot_level: null, bot_account: false },
      { seat: 1, player_id: 8, display_name: "Bea", bot_level: null, bot_account: false },
      { seat: 2, player_id: null, display_name: null, bot_level: "easy", bot_account: false },
      { seat: 3, player_id: null, display_name: null, bot_level: null, bot_account: false },
    ],
    version: 10,
    updated_at: at(-60),
    ...over,
  };
}

const names = (seat: number) => (seat === 0 ? "You" : ["You", "Bea", "Cleo", "Dan"][seat]);

describe("turn limits", () => {
  it("offers 1 hour to 7 days for correspondence, within the server's maximum", () => {
    expect(CORRESPONDENCE_TURNS[0]).toBe(HOUR);
    expect(Math.max(...CORRESPONDENCE_TURNS)).toBe(TURN_SECONDS_MAX);
    expect(CORRESPONDENCE_TURNS.every(isCorrespondence)).toBe(true);
    expect(isCorrespondence(300)).toBe(false);
    expect(isCorrespondence(null)).toBe(false);
  });

  it("names each limit in its largest whole unit", () => {
    expect(turnLimitText(30)).toBe("30 s");
    expect(turnLimitText(60)).toBe("60 s");
    expect(turnLimitText(300)).toBe("5 min");
    expect(turnLimitText(HOUR)).toBe("1 hour");
    expect(turnLimitText(12 * HOUR)).toBe("12 hours");
    expect(turnLimitText(DAY)).toBe("1 day");
    expect(turnLimitText(7 * DAY)).toBe("7 days");
  });
});

describe("deadlines", () => {
  it("says a span in its two largest units", () => {
    expect(durationText(2 * DAY + 3 * HOUR + 59 * 60)).toBe("2 days 3 h");
    expect(durationText(DAY)).toBe("1 day");
    expect(durationText(5 * HOUR + 20 * 60 + 7)).toBe("5 h 20 min");
    expect(durationText(HOUR)).toBe("1 h");
    expect(durationText(12 * 60 + 30)).toBe("12 min");
    expect(durationText(45.9)).toBe("45 s");
    expect(durationText(-5)).toBe("0 s");
  });

  it("counts what is left on the server's clock", () => {
    expect(timeLeftText(at(2 * DAY + 3 * HOUR), NOW)).toBe("2 days 3 h left");
    expect(timeLeftText(at(-1), NOW)).toBe("time is up");
    expect(timeLeftText(null, NOW)).toBe("");
    // The server's clock is 10 s ahead of this page's; 4 s later the server's time is +14 s.
    const readAt = NOW - 10_000;
    expect(serverClock(new Date(NOW).toISOString(), readAt, readAt + 4000)).toBe(NOW + 4000);
  });
});

describe("my games", () => {
  it("puts my turn first by the soonest deadline, then the others by deadline, none last", () => {
    const games = [
      game({ game_id: 1, turn_deadline: null, updated_at: at(-10) }),
      game({ game_id: 2, turn_deadline: at(5 * HOUR) }),
      game({ game_id: 3, my_turn: true, to_act: 0, turn_deadline: at(2 * DAY) }),
      game({ game_id: 4, turn_deadline: null, updated_at: at(-5) }),
      game({ game_id: 5, my_turn: true, to_act: 0, turn_deadline: at(HOUR) }),
      game({ game_id: 6, my_turn: true, to_act: 0, turn_deadline: null }),
    ];
    expect(myGamesOrder(games).map((g) => g.game_id)).toEqual([5, 3, 6, 2, 4, 1]);
  });

  it("labels a row: whose turn, what is left, the game and who sits there", () => {
    const mine = myGameRow(game({ my_turn: true, to_act: 0, turn_deadline: at(2 * DAY + 3 * HOUR), rated: true }), NOW);
    expect(mine).toMatchObject({ id: 1, state: "Your turn", left: "2 days 3 h left", mine: true, paused: false });
    expect(mine.about).toBe("classic · 3 days per turn · rated");
    expect(mine.players).toBe("You, Bea, Bot (easy), open seat");
    const robo = game({ players: [{ seat: 1, player_id: 9, display_name: "Robo", bot_level: null, bot_account: true }] });
    expect(myGameRow(robo, NOW).players).toContain("Robo (bot)");
    expect(myGameRow(game({ turn_deadline: at(90) }), NOW)).toMatchObject({ state: "Bea to play", left: "1 min left", mine: false });
    const paused = myGameRow(game({ paused: true, my_turn: true, to_act: 0, turn_deadline: null }), NOW);
    expect(paused).toMatchObject({ state: "Paused", left: "", mine: false, paused: true });
    expect(myGameRow(game({ status: "lobby", to_act: null, turn_seconds: null }), NOW)).toMatchObject({ state: "Waiting for players", about: "classic · no timer" });
    expect(myGamesSummary([game({ my_turn: true }), game(), game({ my_turn: true, paused: true })])).toBe("3 games, 1 waiting for you.");
    expect(myGamesSummary([])).toBe("0 games, none waiting for you.");
  });
});

describe("the pause", () => {
  const pause = (over: Partial<PauseView> = {}): PauseView => ({ paused: false, paused_at: null, remaining_seconds: null, proposal: null, ...over });
  const proposal = (by: number, accepted: number[], waiting: number[]) => ({ proposed_by: by, accepted, waiting_for: waiting, proposed_at: at(0) });

  it("offers a proposal to a seated player, nothing to a spectator", () => {
    expect(pauseControls(pause(), 0, names)).toEqual({ text: "", propose: true, answer: false, withdraw: false, resume: false });
    expect(pauseControls(pause(), null, names).propose).toBe(false);
  });

  it("asks the seats still to answer, lets the proposer withdraw", () => {
    const p = pause({ proposal: proposal(1, [1], [0, 2]) });
    const asked = pauseControls(p, 0, names);
    expect(asked.text).toBe("Bea proposes to pause the game; waiting for You, Cleo.");
    expect(asked).toMatchObject({ answer: true, withdraw: false, propose: false });
    const proposer = pauseControls(pause({ proposal: proposal(0, [0], [1]) }), 0, names);
    expect(proposer.text).toBe("You propose to pause the game; waiting for Bea.");
    expect(proposer).toMatchObject({ answer: false, withdraw: true });
  });

  it("offers the resume once paused, with the turn's time kept", () => {
    const c = pauseControls(pause({ paused: true, paused_at: at(0), remaining_seconds: 2 * DAY + HOUR }), 1, names);
    expect(c.text).toBe("The game is paused by agreement. The turn keeps 2 days 1 h for when it resumes.");
    expect(c).toMatchObject({ resume: true, propose: false, answer: false });
  });

  it("tells each pause fact of the move log, in What happened and the replay", () => {
    expect(pauseFactText({ type: "pause_proposed", seat: 1 }, names)).toBe("Bea proposed to pause the game.");
    expect(pauseFactText({ type: "pause_accepted", seat: 0 }, names)).toBe("You agreed to pause the game.");
    expect(pauseFactText({ type: "pause_declined", seat: 2 }, names)).toBe("Cleo declined to pause the game.");
    expect(pauseFactText({ type: "game_paused", seat: null }, names)).toBe("The game is paused.");
    expect(pauseFactText({ type: "game_resumed", seat: 1, payload: { remaining_seconds: 5400 } }, names)).toBe("Bea resumed the game: 1 h 30 min left for the turn.");
    expect(pauseFactText({ type: "card_discarded", seat: 1 }, names)).toBe("");
    expect(describeEvent({ type: "game_paused", effects: [], payload: { seats: [0, 1], remaining_seconds: 60 } }, names)).toEqual(["The game is paused."]);
  });
});
