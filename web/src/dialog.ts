// A modal dialog: labelled by its heading, focus moved into it and kept there (Tab wraps),
// Escape or a click outside closes it, and focus goes back to where it was.

export interface Dialog {
  element: HTMLElement;
  close(): void;
}

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), summary, [tabindex]:not([tabindex="-1"])';

let counter = 0;
const open = new Set<() => void>();

/** The page behind a dialog: inert (no focus, no clicks) and hidden from screen readers. */
function setBehind(hidden: boolean): void {
  const app = document.getElementById("app");
  if (!app) return;
  app.inert = hidden;
  if (hidden) app.setAttribute("aria-hidden", "true");
  else app.removeAttribute("aria-hidden");
}

/** Close every dialog without moving focus (the page is going to another screen). */
export function closeDialogs(): void {
  for (const close of [...open]) close();
}

/** Open ``body`` (whose first heading names the dialog) over the page. ``restore`` is called
 * on close when the element that had focus is gone (the page was redrawn meanwhile). */
export function openDialog(body: HTMLElement, onClose?: () => void, restore?: () => void): Dialog {
  const active = document.activeElement;
  const opener = active instanceof HTMLElement && active !== document.body ? active : null;
  const heading = body.querySelector<HTMLElement>("h1, h2, h3");
  if (heading) {
    heading.id ||= `dialog-title-${++counter}`;
    heading.tabIndex = -1;
    body.setAttribute("aria-labelledby", heading.id);
  }
  body.setAttribute("role", "dialog");
  body.setAttribute("aria-modal", "true");
  const backdrop = document.createElement("div");
  backdrop.className = "modal";
  backdrop.append(body);
  const remove = () => {
    open.delete(remove);
    backdrop.remove();
    document.removeEventListener("keydown", onKey, true);
    if (!open.size) setBehind(false);
  };
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    remove();
    onClose?.();
    // The opener, or the same control drawn anew since, else where the page says.
    const again =
      opener && !opener.isConnected && opener.dataset.testid
        ? document.querySelector<HTMLElement>(`[data-testid="${opener.dataset.testid}"]`)
        : opener;
    if (again && again.isConnected && !(again as HTMLButtonElement).disabled) again.focus();
    else restore?.();
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.key === "Escape") {
      e.preventDefault();
      close();
    } else if (e.key === "Tab") {
      const items = [...body.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => el.offsetParent !== null);
      if (!items.length) return;
      const first = items[0];
      const last = items[items.length - 1];
      const inside = body.contains(document.activeElement);
      if (e.shiftKey && (document.activeElement === first || !inside)) {
        e.preventDefault();
        last.focus();
      } else if (!e.shiftKey && (document.activeElement === last || !inside)) {
        e.preventDefault();
        first.focus();
      }
    }
  };
  backdrop.addEventListener("click", (e) => {
    if (e.target === backdrop) close();
  });
  document.addEventListener("keydown", onKey, true);
  open.add(remove);
  (document.getElementById("main") ?? document.body).append(backdrop);
  setBehind(true);
  (heading ?? body.querySelector<HTMLElement>(FOCUSABLE))?.focus();
  return { element: backdrop, close };
}
