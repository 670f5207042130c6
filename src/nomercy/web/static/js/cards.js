// Our own card faces: a colour plus a distinct shape per colour (so colour-blind players can
// tell them apart), a value glyph, and wilds in four quarters. Pure DOM, no images to load.
import { t } from "./i18n.js";

export const COLOURS = ["R", "Y", "G", "B"];
// One shape per colour, drawn as SVG so it looks the same on every system font.
const SHAPES = {
  R: '<circle cx="12" cy="12" r="9"/>',
  Y: '<polygon points="12,2.5 22,21 2,21"/>',
  G: '<rect x="3.5" y="3.5" width="17" height="17" rx="1.5"/>',
  B: '<polygon points="12,1.5 22.5,12 12,22.5 1.5,12"/>',
};

export function shapeSvg(colour, cls = "shape") {
  const inner = SHAPES[colour] || "";
  return `<svg class="${cls}" viewBox="0 0 24 24" aria-hidden="true" focusable="false">${inner}</svg>`;
}

/** Split a card code: {colour: "R"|null, face: "7"|"S"|"+2"|..., wild: bool}. */
export function parseCode(code) {
  if (code.startsWith("W")) return { colour: null, face: code, wild: true };
  return { colour: code[0], face: code.slice(1), wild: false };
}

const FACE_GLYPH = {
  S: "⊘",
  R: "⇄",
  SE: "⊘⊘",
  DA: "⇊",
  W: "★",
  "W+4": "+4",
  "WR+4": "⇄+4",
  "W+6": "+6",
  "W+10": "+10",
  WCR: "◎",
};

export function faceGlyph(face) {
  return FACE_GLYPH[face] || face;
}

/** The card's name in the current language ("red 7", "Wild +6"). */
export function cardName(code) {
  const { colour, face, wild } = parseCode(code);
  if (wild) return t(`card.${face}`);
  const faceName = /^\d$/.test(face) ? face : t(`face.${face}`);
  return t("card.coloured", { colour: colourWord(colour), face: faceName });
}

export function colourWord(letter) {
  return t(`colour.${letter}`);
}

/** A small inline chip for a colour: the shape in its colour plus the word. */
export function colourChip(letter) {
  const span = document.createElement("span");
  span.className = `chip c-${letter}`;
  span.innerHTML = `${shapeSvg(letter)}<span>${escapeHtml(colourWord(letter))}</span>`;
  return span;
}

export function escapeHtml(s) {
  return String(s).replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c],
  );
}

/** Build a card face element (a <button> when opts.button, else a <div>). */
export function cardElement(code, opts = {}) {
  const { colour, face, wild } = parseCode(code);
  const el = document.createElement(opts.button ? "button" : "div");
  if (opts.button) el.type = "button";
  el.className = `card ${wild ? "wild" : `c-${colour}`}${opts.small ? " small" : ""}`;
  el.dataset.code = code;
  const name = cardName(code);
  el.setAttribute("aria-label", name);
  el.title = name;
  const glyph = escapeHtml(faceGlyph(face));
  const long = glyph.length > 2 ? " long" : "";
  if (wild) {
    el.innerHTML =
      `<span class="quarters" aria-hidden="true">${COLOURS.map((c) => `<i class="q c-${c}">${shapeSvg(c)}</i>`).join("")}</span>` +
      `<span class="corner tl" aria-hidden="true">${glyph}</span>` +
      `<span class="value${long}" aria-hidden="true">${glyph}</span>` +
      `<span class="corner br" aria-hidden="true">${glyph}</span>`;
  } else {
    el.innerHTML =
      `<span class="corner tl" aria-hidden="true">${glyph}</span>` +
      `<span class="oval" aria-hidden="true">${shapeSvg(colour, "shape big")}<span class="value${long}">${glyph}</span></span>` +
      `<span class="corner br" aria-hidden="true">${shapeSvg(colour)}</span>`;
  }
  return el;
}

/** A face-down card (the back): "NM" for No Mercy's deck; classic's (`opts.preset`) shows
 * the four colours' shapes instead (the project's own art, no brand). */
export function cardBack(opts = {}) {
  const el = document.createElement("div");
  const classic = opts.preset === "classic";
  el.className = `card back${classic ? " classic" : ""}${opts.small ? " small" : ""}`;
  const mark = classic ? COLOURS.map((c) => shapeSvg(c, `shape c-${c}`)).join("") : "NM";
  el.innerHTML = `<span class="back-mark" aria-hidden="true">${mark}</span>`;
  return el;
}

const FACE_ORDER = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "S", "R", "+2", "+4", "SE", "DA"];
const WILD_ORDER = ["W", "WCR", "W+4", "WR+4", "W+6", "W+10"];

function sortKey(c) {
  if (c.startsWith("W")) return 400 + WILD_ORDER.indexOf(c);
  return COLOURS.indexOf(c[0]) * 100 + FACE_ORDER.indexOf(c.slice(1));
}

/** Cards grouped by colour (red, yellow, green, blue, then wilds), each group in face order. */
export function sortCards(codes) {
  return [...codes].sort((a, b) => sortKey(a) - sortKey(b));
}
