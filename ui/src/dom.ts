// A few lines of DOM building. Everything the server sends is put into the
// page as text (textContent, attributes), never parsed as HTML, and without
// bidirectional controls (see plain).

export type Child = Node | string | number | null | undefined | false | Child[];

type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

/** h builds an element: h("p", { class: "x" }, "text", child). */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs | null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

function setAttrs(el: Element, attrs?: Attrs | null): void {
  if (!attrs) return;
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === "function") {
      el.addEventListener(name.replace(/^on/, ""), value);
    } else {
      el.setAttribute(name, value === true ? "" : plain(String(value)));
    }
  }
}

// Explicit bidirectional embeddings, overrides and isolates (U+202A–U+202E,
// U+2066–U+2069). The card never needs them, and in text the assistant
// wrote (a sender name, a summary) they can make the person read something
// else than what is there: a price reversed, a domain spelled backwards.
// Right-to-left letters need none of them to show right.
const bidiControls = /[\u202a-\u202e\u2066-\u2069]/g;

/** plain returns text as it may be shown: without bidirectional controls. */
export function plain(text: string): string {
  return text.replace(bidiControls, "");
}

/**
 * address shows a web or email address that may break across lines only
 * after its punctuation ("/", ".", "?", "&", "=", "@"…), never inside a
 * word: a line break opportunity (<wbr>) after each, which copying and
 * reading aloud ignore.
 */
export function address(text: string): Child[] {
  return plain(text)
    .split(/(?<=[/.?&=#@_\-:])/)
    .flatMap((part, i) => (i === 0 ? [part] : [document.createElement("wbr"), part]));
}

export function append(el: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else if (c instanceof Node) el.appendChild(c);
    else el.appendChild(document.createTextNode(plain(String(c))));
  }
}

const SVG = "http://www.w3.org/2000/svg";

// Icons are inline SVG paths (24×24, stroked), decorative: hidden from
// assistive technology, the text next to them says the same.
const paths: Record<string, string[]> = {
  check: ["M20 6 9 17l-5-5"],
  x: ["M18 6 6 18", "M6 6l12 12"],
  clock: ["M12 7v5l3 2", "M21 12a9 9 0 1 1-18 0 9 9 0 0 1 18 0z"],
  alert: ["M12 9v4", "M12 17h.01", "M10.3 3.9 1.8 18a2 2 0 0 0 1.7 3h17a2 2 0 0 0 1.7-3L13.7 3.9a2 2 0 0 0-3.4 0z"],
  external: ["M15 3h6v6", "M10 14 21 3", "M18 13v6a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2V8a2 2 0 0 1 2-2h6"],
  mail: ["M4 4h16a2 2 0 0 1 2 2v12a2 2 0 0 1-2 2H4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z", "m22 6-10 7L2 6"],
  question: ["M9.1 9a3 3 0 0 1 5.8 1c0 2-3 3-3 3", "M12 17h.01", "M21 12a9 9 0 1 1-18 0 9 9 0 0 1 18 0z"],
  shield: ["M12 22s8-4 8-10V5l-8-3-8 3v7c0 6 8 10 8 10z", "m9 12 2 2 4-4"],
  info: ["M12 16v-4", "M12 8h.01", "M21 12a9 9 0 1 1-18 0 9 9 0 0 1 18 0z"],
  globe: ["M21 12a9 9 0 1 1-18 0 9 9 0 0 1 18 0z", "M3 12h18", "M12 3a14 14 0 0 1 0 18", "M12 3a14 14 0 0 0 0 18"],
  flame: ["M8.5 14.5A2.5 2.5 0 0 0 11 12c0-1.4-.5-2-1-3-1.1-2.1-.2-4 2-6 .5 2.5 2 4.9 4 6.5 2 1.6 3 3.5 3 5.5a7 7 0 1 1-14 0c0-1.2.4-2.3 1-3.2.2 1.2 1.3 2.7 2.5 2.7z"],
  book: ["M4 19.5A2.5 2.5 0 0 1 6.5 17H20V3H6.5A2.5 2.5 0 0 0 4 5.5z", "M4 19.5A2.5 2.5 0 0 0 6.5 22H20v-5"],
  bulb: ["M9 18h6", "M10 22h4", "M12 2a7 7 0 0 0-4 12.7V17h8v-2.3A7 7 0 0 0 12 2z"],
  tag: ["M20.6 13.4 13.4 20.6a2 2 0 0 1-2.8 0L2 12V2h10l8.6 8.6a2 2 0 0 1 0 2.8z", "M7 7h.01"],
  life: ["M21 12a9 9 0 1 1-18 0 9 9 0 0 1 18 0z", "M12 16a4 4 0 1 0 0-8 4 4 0 0 0 0 8z", "m4.9 4.9 4.3 4.3", "m14.8 14.8 4.3 4.3", "m14.8 9.2 4.3-4.3", "m4.9 19.1 4.3-4.3"],
  layers: ["m12 2 10 5-10 5L2 7z", "m2 17 10 5 10-5", "m2 12 10 5 10-5"],
  gauge: ["M12 14l4-4", "M3.3 19a10 10 0 1 1 17.4 0"],
  list: ["M8 6h13", "M8 12h13", "M8 18h13", "M3 6h.01", "M3 12h.01", "M3 18h.01"],
  home: ["m3 9 9-7 9 7v11a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2z", "M9 22V12h6v10"],
  arrow: ["M5 12h14", "m12 5 7 7-7 7"],
};

export function icon(name: keyof typeof paths | string, cls = "icon"): SVGSVGElement {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  svg.setAttribute("class", cls);
  for (const d of paths[name] ?? paths.info) {
    const p = document.createElementNS(SVG, "path");
    p.setAttribute("d", d);
    svg.appendChild(p);
  }
  return svg;
}

let nextId = 0;

/** uid returns a page-unique id for label/aria wiring. */
export function uid(prefix: string): string {
  nextId += 1;
  return `${prefix}-${nextId}`;
}
