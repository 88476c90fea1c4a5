// A live region for screen readers: the other players' moves and whose turn it is. It lives
// outside the screens (which are redrawn on every change) so that each line is read once.
import { spoken } from "./cards";
import { gettext } from "./i18n";

const KEEP = 40;

function region(): HTMLElement {
  let el = document.getElementById("announcer");
  if (!el) {
    el = document.createElement("div");
    el.id = "announcer";
    el.className = "sr-only";
    el.setAttribute("role", "log");
    el.setAttribute("aria-live", "polite");
    el.setAttribute("aria-label", gettext("Table news"));
    el.dataset.testid = "announcer";
    (document.getElementById("main") ?? document.body).append(el);
  }
  return el;
}

/** Read ``lines`` out (cards spelled in words), after what is already queued. */
export function announce(...lines: string[]): void {
  const el = region();
  for (const line of lines) {
    if (!line) continue;
    const p = document.createElement("p");
    p.textContent = spoken(line);
    el.append(p);
  }
  while (el.childElementCount > KEEP) el.firstElementChild?.remove();
}

/** Forget what was said (a new screen). */
export function hush(): void {
  document.getElementById("announcer")?.replaceChildren();
}
