// Entry point: a hash router over three screens (lobby, table, replay).
//   #/              sign up, create a table against bots, join by code, your games
//   #/game/{id}     the table (or its waiting room)
//   #/replay/{id}   the move log step by step
//   #/join/{code}   join a table through its link
//   #/play          quick play: the queue (rated or casual)
//   #/leaderboard/{format}[/{offset}]   the leaderboard of a rating format
//   #/player/{id|me}                    a player's profile and ratings
//   #/games         my games: my turn first, with each deadline
//   #/notifications notification settings, Web Push, webhooks
//   #/friends       friends and challenges
//   #/tournaments   the events list; #/tournaments/new the organiser's form
//   #/tournament/{id}[/boards]          an event (entry, pairings, standings, organiser); a duplicate's boards
//   #/account       e-mail, password, passkeys, TOTP, sign-ins, tokens, export, deletion
//   #/account/signin|signup|verify|reset   the browser sign-in flows (allauth's headless API)
import "./style.css";
import {
  ApiError,
  api,
  type BotLevel,
  forget,
  type GameCreateRequest,
  type GameSummary,
  playerName,
  type QueueStatus,
  type Rules,
  signedIn,
  signUp,
  browserSession,
} from "./api";
import { AccountScreen } from "./account";
import { browserAuth } from "./allauth";
import { deviceKeys } from "./deviceKeys";
import { FriendsScreen } from "./friends";
import { AuthScreen, type AuthMode, checkBrowserSession } from "./signin";
import { CORRESPONDENCE_TURNS, LIVE_TURNS, turnLimitText } from "./correspondence";
import { closeDialogs } from "./dialog";
import { clear, h } from "./dom";
import { GameScreen } from "./game";
import { openHelp } from "./help";
import { LeaderboardScreen } from "./leaderboard";
import { MyGamesScreen } from "./mygames";
import { TournamentBoardsScreen, TournamentCreateScreen, TournamentScreen, TournamentsScreen } from "./tournaments";
import { pageHeader } from "./nav";
import { choiceText, optionExplanation, optionOffered, optionTitle, presetExplanation, presetFamily, presetTitle, presetValue, targetRange } from "./options";
import { PlayerScreen } from "./profile";
import { QuickPlayScreen } from "./quickplay";
import { isFormat } from "./ratings";
import { ReplayScreen } from "./replayView";
import { NotificationsScreen } from "./settings";
import { followNotificationClicks } from "./webpush";
import { startOffline } from "./offline";
import { counted, gettext, interpolate, languageChosen, loadLanguage, ngettext, preferredLanguage, rememberLanguage, supportedLanguage } from "./i18n";
import { languageChooser } from "./nav";

const root = document.getElementById("app")!;
let screen: { dispose(): void } | null = null;

function problemText(err: unknown): string {
  if (err instanceof ApiError) {
    const fields = (err.problem.errors ?? []).map((e) => `${e.field ?? ""}: ${e.message}`).join("; ");
    return `${err.problem.detail}${fields ? ` — ${fields}` : ""}`;
  }
  return String(err);
}

function messageBox(): HTMLElement {
  return h("div", { class: "message empty", testid: "message", role: "status" });
}

function say(box: HTMLElement, text: string, kind: "error" | "info" = "error"): void {
  box.className = `message ${kind}`;
  box.textContent = text;
}

/** A game's status in words ("waiting", "active", "finished", ...). */
function statusName(status: string): string {
  const names: Record<string, string> = {
    lobby: gettext("lobby"),
    active: gettext("active"),
    finished: gettext("finished"),
    abandoned: gettext("abandoned"),
  };
  return names[status] ?? status;
}

/** A bot's level in words. */
function botLevelName(level: string): string {
  const names: Record<string, string> = { easy: gettext("easy"), medium: gettext("medium"), hard: gettext("hard") };
  return names[level] ?? level;
}

// ---------------------------------------------------------------------------- how to play
let rulesCache: Rules | null = null;

/** "How to play": the rule book and every rule option (with the server's explanations when
 * signed in). */
function helpButton(): HTMLElement {
  return h(
    "button",
    {
      testid: "help-button",
      onclick: async () => {
        if (!rulesCache && signedIn()) rulesCache = await api.rules().catch(() => null);
        openHelp({ rules: rulesCache });
      },
    },
    gettext("How to play"),
  );
}

// ---------------------------------------------------------------------------- sign-up
function renderSignUp(): void {
  const name = h("input", {
    id: "display-name",
    maxlength: 40,
    placeholder: gettext("Your name"),
    autocomplete: "nickname",
    required: true,
  }) as HTMLInputElement;
  const box = messageBox();
  const form = h(
    "form",
    {
      class: "panel",
      onsubmit: async (e: Event) => {
        e.preventDefault();
        try {
          await signUp(name.value.trim() || gettext("Guest"));
          route();
        } catch (err) {
          say(box, problemText(err));
        }
      },
    },
    h("h1", {}, gettext("Play Canasta against bots or friends")),
    h("p", {}, gettext("Pick a name to play as a guest; no password needed.")),
    h("div", { class: "row" }, h("label", { for: "display-name", class: "sr-only" }, gettext("Your name")), name, h("button", { class: "primary", type: "submit", testid: "sign-up" }, gettext("Play"))),
    box,
    h(
      "p",
      { class: "links", testid: "account-links" },
      gettext("Have an account?"),
      " ",
      h("a", { href: "#/account/signin", testid: "to-signin" }, gettext("Sign in")),
      " · ",
      h("a", { href: "#/account/signup", testid: "to-signup" }, gettext("Create an account")),
    ),
  );
  root.append(
    h(
      "header",
      { class: "game-header" },
      h("span", { class: "home" }, "♠ Canasta"),
      h("span", { class: "game-title" }, ""),
      h("span", { class: "header-buttons" }, helpButton(), languageChooser()),
    ),
    form,
  );
  name.focus();
}

// ---------------------------------------------------------------------------- create a table
function createForm(rules: Rules): HTMLElement {
  const box = messageBox();
  const presetSel = h(
    "select",
    { id: "preset", testid: "preset", "aria-describedby": "preset-help" },
    ...Object.keys(rules.presets).map((p) => h("option", { value: p }, presetTitle(p))),
  ) as HTMLSelectElement;
  const seatsBox = h("div", { class: "seat-choices", testid: "seat-choices" });
  const optionsBox = h("div", { class: "options-grid" });
  const inputs = new Map<string, HTMLInputElement | HTMLSelectElement>();
  const isPublic = h("input", { type: "checkbox", id: "is-public" }) as HTMLInputElement;
  const rated = h("input", { type: "checkbox", id: "rated", testid: "rated", "aria-describedby": "rated-help" }) as HTMLInputElement;
  const ratedHelp = h("small", { class: "hint", id: "rated-help", testid: "rated-help" });
  const hints = h("input", { type: "checkbox", id: "hints", testid: "hints", "aria-describedby": "hints-help" }) as HTMLInputElement;
  const hintsHelp = h("small", { class: "hint", id: "hints-help", testid: "hints-help" }, gettext("On your turn a Hint button suggests a move. Not at rated tables."));
  const moreOptions = h("details", {}, h("summary", {}, gettext("More rule options")), optionsBox);
  const timerSel = h(
    "select",
    { id: "turn-seconds", testid: "turn-seconds", "aria-describedby": "turn-seconds-help" },
    h("option", { value: "" }, gettext("no timer")),
    h("optgroup", { label: gettext("Live") }, ...LIVE_TURNS.map((sec) => h("option", { value: String(sec) }, turnLimitText(sec)))),
    h("optgroup", { label: gettext("Correspondence (days-long games)") }, ...CORRESPONDENCE_TURNS.map((sec) => h("option", { value: String(sec) }, turnLimitText(sec)))),
  ) as HTMLSelectElement;
  const timerHelp = h("small", { class: "hint", id: "turn-seconds-help", testid: "turn-seconds-help" });
  const explainTimer = () => {
    const sec = Number(timerSel.value);
    timerHelp.textContent = sec > 1800 ? interpolate(gettext("Correspondence: %(limit)s per turn; come back when it is your turn (My games, notifications)."), { limit: turnLimitText(sec) }) : "";
  };
  timerSel.addEventListener("change", explainTimer);

  const presetValues = () => rules.presets[presetSel.value] as unknown as Record<string, unknown>;
  const players = () => Number(inputs.get("players")?.value ?? presetValues().players);

  function buildOptions(): void {
    clear(optionsBox);
    inputs.clear();
    const family = presetFamily(presetSel.value, presetValues());
    for (const [name, spec] of Object.entries(rules.options)) {
      if (!optionOffered(presetSel.value, presetValues(), name, rules)) continue;
      const value = presetValue(rules, presetValues(), name);
      const [low, high] = name === "target_score" ? targetRange(family) : [spec.min, spec.max];
      let input: HTMLInputElement | HTMLSelectElement;
      if (spec.choices) {
        input = h("select", { id: `opt-${name}` }, ...spec.choices.map((c) => h("option", { value: c, selected: String(c) === String(value) }, choiceText(c)))) as HTMLSelectElement;
      } else if (spec.type === "bool") {
        input = h("input", { type: "checkbox", id: `opt-${name}`, checked: Boolean(value) }) as HTMLInputElement;
      } else {
        input = h("input", { type: "number", id: `opt-${name}`, min: low, max: high, step: name === "target_score" ? 50 : 1, value: String(value) }) as HTMLInputElement;
      }
      if (name === "players") input.addEventListener("change", buildSeats);
      inputs.set(name, input);
      if (name === "target_score") continue; // shown above the fold
      const explained = optionExplanation(rules, name);
      if (explained) input.setAttribute("aria-describedby", `opt-${name}-help`);
      optionsBox.append(
        h(
          "div",
          { class: "option" },
          h("label", { for: `opt-${name}` }, h("span", {}, optionTitle(name)), input),
          explained ? h("small", { class: "hint", id: `opt-${name}-help` }, explained) : "",
        ),
      );
    }
    buildSeats();
  }

  function buildSeats(): void {
    clear(seatsBox);
    const n = players();
    for (let seat = 1; seat < n; seat++) {
      const partner = n === 4 && seat === 2;
      seatsBox.append(
        h(
          "label",
          {},
          h("span", {}, interpolate(partner ? gettext("Seat %(seat)s (partner)") : n === 4 ? gettext("Seat %(seat)s (opponent)") : gettext("Seat %(seat)s"), { seat: seat + 1 })),
          h(
            "select",
            { id: `seat-${seat}`, testid: `seat-choice-${seat}` },
            ...rules.bot_levels.map((l) => h("option", { value: l }, interpolate(gettext("bot: %(level)s"), { level: botLevelName(l) }))),
            h("option", { value: "open" }, gettext("open seat for a friend")),
          ),
        ),
      );
    }
    applyRated();
  }

  /** A rated table: the preset's standard rules and people only (every other seat open). */
  function applyRated(): void {
    const on = rated.checked;
    ratedHelp.textContent = on
      ? gettext("Rated: standard rules and people only; the other seats wait for players (share the code or list the table). The result changes everyone's rating.")
      : "";
    for (const input of inputs.values()) {
      if (input.id === "opt-target_score" || input.id === "opt-players") continue;
      input.disabled = on;
    }
    for (const name of ["target_score", "players"]) {
      const input = inputs.get(name);
      if (input) input.disabled = on;
    }
    moreOptions.hidden = on;
    if (on) hints.checked = false; // a rated table has no hints (the server refuses: rated_no_hints)
    hints.disabled = on;
    for (const sel of seatsBox.querySelectorAll<HTMLSelectElement>("select")) {
      if (on) sel.value = "open";
      sel.disabled = on;
    }
  }

  const presetHelp = h("small", { class: "hint", id: "preset-help", testid: "preset-help" });
  const explainPreset = () => {
    presetHelp.textContent = presetExplanation(rules, presetSel.value);
  };
  presetSel.addEventListener("change", explainPreset);
  explainPreset();
  presetSel.addEventListener("change", buildOptions);
  rated.addEventListener("change", () => {
    if (!rated.checked) return applyRated();
    buildOptions(); // back to the preset's own rules
    targetSlot.replaceChildren(inputs.get("target_score")!);
  });
  buildOptions();
  const target = inputs.get("target_score")!;
  presetSel.addEventListener("change", () => {
    const t = inputs.get("target_score")!;
    targetSlot.replaceChildren(t);
  });
  const targetSlot = h("span", {}, target);

  async function create(e: Event): Promise<void> {
    e.preventDefault();
    const preset = presetSel.value;
    const options: Record<string, unknown> = {};
    for (const [name, input] of inputs) {
      const spec = rules.options[name];
      const value =
        input instanceof HTMLInputElement && input.type === "checkbox"
          ? input.checked
          : spec.type === "int"
            ? Number(input.value)
            : input.value;
      if (value !== presetValue(rules, presetValues(), name) && !rated.checked) options[name] = value;
    }
    const bots: { seat: number; level: BotLevel }[] = [];
    let open = 0;
    for (let seat = 1; seat < players(); seat++) {
      const v = (document.getElementById(`seat-${seat}`) as HTMLSelectElement).value;
      if (v === "open") open++;
      else bots.push({ seat, level: v as BotLevel });
    }
    const body: GameCreateRequest = {
      preset: preset as GameCreateRequest["preset"],
      options: options as GameCreateRequest["options"],
      is_public: isPublic.checked,
      bots,
      seat: 0,
      spectate: false,
      turn_seconds: timerSel.value ? Number(timerSel.value) : null,
      timeout_limit: 3,
      timeout_outcome: rated.checked ? "abandon" : "bot",
      rated: rated.checked,
      hints: hints.checked && !rated.checked,
    };
    try {
      let game = await api.createGame(body);
      if (open === 0) game = await api.start(game.id, { fill_with_bots: false, bot_level: "easy" });
      location.hash = `#/game/${game.id}`;
    } catch (err) {
      say(box, problemText(err));
    }
  }

  return h(
    "form",
    { class: "panel create", onsubmit: create, testid: "create-form" },
    h("h2", {}, gettext("New table")),
    h("div", { class: "options-grid" }, h("div", { class: "option" }, h("label", { for: "preset" }, h("span", {}, gettext("Rules")), presetSel), presetHelp), h("label", { for: "opt-target_score" }, h("span", {}, gettext("Target score")), targetSlot), h("div", { class: "option" }, h("label", { for: "turn-seconds" }, h("span", {}, gettext("Turn timer")), timerSel), timerHelp)),
    seatsBox,
    moreOptions,
    h("label", { class: "inline" }, isPublic, " ", gettext("list the table publicly (otherwise friends join with its code)")),
    h("div", { class: "option" }, h("label", { class: "inline" }, rated, " ", gettext("rated (counts for the leaderboard)")), ratedHelp),
    h("div", { class: "option" }, h("label", { class: "inline", for: "hints" }, hints, " ", gettext("hints (suggested moves on request)")), hintsHelp),
    h("div", { class: "row" }, h("button", { class: "primary", type: "submit", testid: "create-game" }, gettext("Create and play"))),
    box,
  );
}

// ---------------------------------------------------------------------------- join, lists
function joinForm(): HTMLElement {
  const code = h("input", { id: "join-code", placeholder: gettext("Join code"), "aria-label": gettext("Join code"), maxlength: 16, autocapitalize: "characters" }) as HTMLInputElement;
  const box = messageBox();
  return h(
    "form",
    {
      class: "panel",
      onsubmit: async (e: Event) => {
        e.preventDefault();
        try {
          const game = await api.joinByCode(code.value.trim());
          location.hash = `#/game/${game.id}`;
        } catch (err) {
          say(box, problemText(err));
        }
      },
    },
    h("h2", {}, gettext("Join a friend's table")),
    h("div", { class: "row" }, code, h("button", { type: "submit", testid: "join-game" }, gettext("Join"))),
    box,
  );
}

function gamesList(title: string, games: GameSummary[], open: boolean): HTMLElement {
  return h(
    "section",
    { class: "panel" },
    h("h2", {}, title),
    games.length
      ? h(
          "ul",
          { class: "games" },
          ...games.map((g) =>
            h(
              "li",
              {},
              h("a", { href: `#/game/${g.id}` }, `#${g.id} ${presetTitle(g.preset)}`),
              g.rated ? ` · ${gettext("rated")}` : "",
              ` · ${statusName(g.status)} · ${interpolate(gettext("to %(target)s"), { target: g.target_score })}`,
              open ? ` · ${counted(ngettext("%(count)s free seat", "%(count)s free seats", g.free_seats), g.free_seats)}` : "",
              g.status === "finished" ? h("a", { class: "button small", href: `#/replay/${g.id}`, "aria-label": interpolate(gettext("Replay table #%(id)s"), { id: g.id }) }, gettext("replay")) : "",
              open
                ? h("button", { class: "small", onclick: async () => {
                    try {
                      await api.join(g.id);
                      location.hash = `#/game/${g.id}`;
                    } catch (err) {
                      alert(problemText(err));
                    }
                  }, "aria-label": interpolate(gettext("Join table #%(id)s"), { id: g.id }) }, gettext("join"))
                : "",
            ),
          ),
        )
      : h("p", { class: "muted" }, open ? gettext("No open tables right now.") : gettext("None yet.")),
  );
}

async function renderHome(): Promise<void> {
  if (!signedIn()) {
    renderSignUp();
    return;
  }
  root.append(
    pageHeader(
      interpolate(gettext("Hello, %(name)s"), { name: playerName() ?? gettext("player") }),
      "home",
      helpButton(),
      browserSession()
        ? h("button", { testid: "home-sign-out", onclick: async () => { await browserAuth.signOut().catch(() => null); forget(); route(); } }, gettext("Sign out"))
        : h("button", { onclick: () => { deviceKeys.forget(); forget(); route(); } }, gettext("Change name")),
      h("a", { class: "button", href: "/api/docs/" }, "API"),
    ),
  );
  let rules: Rules;
  try {
    rules = await api.rules();
    rulesCache = rules;
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      forget();
      route();
      return;
    }
    root.append(h("p", { class: "message error" }, problemText(err)));
    return;
  }
  const queued = h("div", { testid: "queue-banner" });
  root.append(queued, h("div", { class: "home-grid" }, createForm(rules), joinForm()));
  void queueBanner(queued);
  try {
    const [mine, open] = await Promise.all([api.myGames(), api.openGames()]);
    root.append(h("div", { class: "home-grid" }, gamesList(gettext("Your games"), mine.results, false), gamesList(gettext("Open public tables"), open.results, true)));
  } catch {
    /* the lists are a convenience */
  }
}

/** While you are in the quick-play queue: a way back to it (or to the table it found). */
async function queueBanner(slot: HTMLElement): Promise<void> {
  let status: QueueStatus;
  try {
    status = await api.queueStatus(0);
  } catch {
    return; // not queued (404)
  }
  slot.append(
    h(
      "p",
      { class: "message info" },
      status.game_id !== null
        ? [gettext("Quick play found your table."), " ", h("a", { href: `#/game/${status.game_id}` }, gettext("Go to the table"))]
        : [gettext("You are in the quick-play queue."), " ", h("a", { href: "#/play" }, gettext("Back to the queue"))],
    ),
  );
}

// ---------------------------------------------------------------------------- router
async function joinByLink(code: string): Promise<void> {
  if (!signedIn()) {
    renderSignUp();
    return;
  }
  try {
    const game = await api.joinByCode(code);
    location.replace(`#/game/${game.id}`);
  } catch (err) {
    root.append(h("p", { class: "message error", testid: "message" }, problemText(err)), h("a", { href: "#/" }, gettext("Back")));
  }
}

function route(): void {
  screen?.dispose();
  screen = null;
  closeDialogs();
  clear(root);
  const hash = location.hash.replace(/^#/, "") || "/";
  const game = hash.match(/^\/game\/(\d+)/);
  const replay = hash.match(/^\/replay\/(\d+)/);
  const join = hash.match(/^\/join\/([A-Za-z0-9]+)/);
  const play = /^\/play\/?$/.test(hash);
  const board = hash.match(/^\/leaderboard(?:\/([a-z_]+))?(?:\/(\d+))?\/?$/);
  const player = hash.match(/^\/player\/(\d+|me)\/?$/);
  const mine = /^\/games\/?$/.test(hash);
  const notifications = /^\/notifications\/?$/.test(hash);
  const friends = /^\/friends\/?$/.test(hash);
  const account = /^\/account\/?$/.test(hash);
  const tournaments = /^\/tournaments\/?$/.test(hash);
  const tournamentNew = /^\/tournaments\/new\/?$/.test(hash);
  const tournament = hash.match(/^\/tournament\/(\d+)(\/boards)?\/?$/);
  const auth = hash.match(/^\/account\/(signin|signup|verify|reset)(?:\/[^?]*)?(?:\?.*)?$/);
  const format = board?.[1] ?? "partnership";
  if ((game || replay || play || board || player || mine || notifications || friends || account || tournaments || tournamentNew || tournament) && !signedIn()) {
    if (account || friends) location.replace(`#/account/signin`);
    else renderSignUp();
    return;
  }
  if (auth) {
    const s = new AuthScreen(root, auth[1] as AuthMode, hash);
    screen = s;
    s.mount();
  } else if (account) {
    const s = new AccountScreen(root);
    screen = s;
    void s.mount();
  } else if (friends) {
    const s = new FriendsScreen(root);
    screen = s;
    void s.mount();
  } else if (game) {
    const s = new GameScreen(root, Number(game[1]));
    screen = s;
    void s.mount();
  } else if (replay) {
    const s = new ReplayScreen(root, Number(replay[1]));
    screen = s;
    void s.mount();
  } else if (join) {
    void joinByLink(join[1]);
  } else if (play) {
    const s = new QuickPlayScreen(root);
    screen = s;
    void s.mount();
  } else if (board && isFormat(format)) {
    const s = new LeaderboardScreen(root, format, Number(board[2] ?? 0));
    screen = s;
    void s.mount();
  } else if (player) {
    const s = new PlayerScreen(root, player[1] === "me" ? "me" : Number(player[1]));
    screen = s;
    void s.mount();
  } else if (mine) {
    const s = new MyGamesScreen(root);
    screen = s;
    void s.mount();
  } else if (tournaments) {
    const s = new TournamentsScreen(root);
    screen = s;
    void s.mount();
  } else if (tournamentNew) {
    const s = new TournamentCreateScreen(root);
    screen = s;
    void s.mount();
  } else if (tournament) {
    const s = tournament[2] ? new TournamentBoardsScreen(root, Number(tournament[1])) : new TournamentScreen(root, Number(tournament[1]));
    screen = s;
    void s.mount();
  } else if (notifications) {
    const s = new NotificationsScreen(root);
    screen = s;
    void s.mount();
  } else {
    void renderHome();
  }
}

window.addEventListener("hashchange", route);
followNotificationClicks();
startOffline();
/** The page's language: the one chosen in this browser; else, signed in, the account's (once:
 * it is remembered), else the browser's preference. */
async function startLanguage(): Promise<string> {
  if (languageChosen() || !signedIn()) return preferredLanguage();
  const account = supportedLanguage((await api.me().catch(() => null))?.language);
  rememberLanguage(account ?? preferredLanguage());
  return preferredLanguage();
}

// The language's catalogue first (English when it cannot be read), then the first screen.
void startLanguage()
  .then(loadLanguage)
  .then(() => {
    // index.html's own words, in the page's language.
    document.getElementById("announcer")?.setAttribute("aria-label", gettext("Table news"));
    return checkBrowserSession();
  })
  .finally(route);
