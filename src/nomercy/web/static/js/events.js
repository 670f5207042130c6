// Event texts in the UI language. The engine gives each event a stable `kind`, its `data`
// (flattened into the event dict by Event.to_dict) and `text`, the English with rule ids.
// We pick a template by kind (and, where one kind has several wordings, a variant), fill it
// from the data, and keep the engine's rule ids. English shows the engine's own text; any
// event we cannot translate completely falls back to that text.
import { cardName, colourWord } from "./cards.js";
import { has, lang, t } from "./i18n.js";

/** The rule ids cited by the English text: "[NM-17, A15]" -> "NM-17, A15". */
export function ruleIds(text) {
  const all = [...String(text || "").matchAll(/\[([A-Z]{1,2}-?\d+[A-Z0-9, -]*)\]/g)];
  return all.length ? all[all.length - 1][1] : "";
}

/** The event's data: a nested `data` object if the server sends one, else the flat dict. */
function dataOf(ev) {
  return ev.data && typeof ev.data === "object" ? { ...ev, ...ev.data } : ev;
}

const CHAIN_RE = /\((\+\d+(?: \+\d+)+)\)/;

/** Which template an event needs: "ev.<kind>" or "ev.<kind>.<variant>". */
export function variantKey(ev) {
  const k = ev.kind;
  const text = String(ev.text || "");
  const d = dataOf(ev);
  switch (k) {
    case "play":
      return text.includes(" stacks ") ? "ev.play.stack" : "ev.play";
    case "absorb":
      if (text.includes("from the last card")) return "ev.absorb.last_card";
      if (text.includes("start card")) return "ev.absorb.start_card";
      if (text.includes("Mercy limit")) return "ev.absorb.mercy";
      return "ev.absorb";
    case "stack":
      if (text.includes("winning card")) return "ev.stack.winning";
      if (text.includes("with two players")) return "ev.stack.self";
      if (text.includes("direction reverses")) return "ev.stack.reverse";
      if (text.includes("[CL-6]")) return "ev.stack.classic";
      return "ev.stack";
    case "draw":
      if (text.includes("looking for a playable card")) return "ev.draw.mercy";
      if (text.includes("finds nothing playable")) return "ev.draw.nothing";
      if (/must play/.test(text)) return d.cards ? "ev.draw.must_card" : "ev.draw.must";
      if (/ may play .* \[NM-9\]/.test(text) || text.includes("until a playable card and may"))
        return d.cards ? "ev.draw.may_card" : "ev.draw.may";
      if (text.includes("and may play it")) return "ev.draw.one_may";
      if (text.includes("and the turn passes")) return "ev.draw.one_passes";
      return "ev.draw.one";
    case "pass":
      return text.includes("Discard All") ? "ev.pass.discard_all" : "ev.pass";
    case "deflect":
      return text.includes("sends the penalty back") ? "ev.deflect.back" : "ev.deflect";
    case "choose_colour":
      return text.includes("start Wild") ? "ev.choose_colour.start" : "ev.choose_colour";
    case "challenge":
      return text.includes("succeeds") ? "ev.challenge.succeeds" : "ev.challenge";
    case "hand_end":
      return (
        (d.points === undefined ? "ev.hand_end.lowest" : "ev.hand_end") +
        (d.how === "last standing" ? ".last" : "")
      );
    case "dealer":
      if (text.startsWith("Cards drawn")) return "ev.dealer.cards";
      if (text.includes("at random")) return "ev.dealer";
      return "ev.dealer.high";
    case "start_card":
      if (text.includes("cannot start")) return "ev.start_card.cannot";
      if (text.includes("no effect")) return "ev.start_card";
      if (text.includes("goes back")) return "ev.start_card.back";
      if (text.includes("bottom of the deck")) return "ev.start_card.bottom";
      if (text.includes("effect is ignored")) return "ev.start_card.ignored";
      return "ev.start_card.classic";
    case "skip":
      return text.includes("start card") ? "ev.skip.start_card" : "ev.skip";
    case "reverse":
      if (text.includes("start card")) return "ev.reverse.start_card";
      if (text.includes("with two players")) return "ev.reverse.two";
      return "ev.reverse";
    case "roulette":
      return d.colour ? "ev.roulette.named" : "ev.roulette";
    default:
      return `ev.${k}`;
  }
}

/** Template parameters for an event; `names` are the seats' display names. */
export function eventParams(ev, names) {
  const d = dataOf(ev);
  const text = String(ev.text || "");
  const nm = (s) => (s === null || s === undefined ? undefined : (names[s] ?? `P${s}`));
  const p = {
    who: nm(ev.seat),
    count: d.count,
    total: d.total,
    last: d.last,
    rules: ruleIds(text),
  };
  if (d.card) p.card = cardName(d.card);
  if (d.colour) p.colour = colourWord(d.colour);
  p.named = d.colour && ev.kind === "play" ? t("ev.named", { colour: p.colour }) : "";
  p.cards = Array.isArray(d.cards) && d.cards.length ? ` (${d.cards.join(", ")})` : "";
  if (Array.isArray(d.cards) && d.cards.length && ev.kind === "draw")
    p.drawn = cardName(d.cards[d.cards.length - 1]);
  if (d.target !== undefined) p.target = nm(d.target);
  if (d.by !== undefined) p.by = nm(d.by);
  if (d.of !== undefined) p.of = nm(d.of);
  if (Array.isArray(d.hand)) p.hand = d.hand.length ? `: ${d.hand.join(", ")}` : "";
  const chain = text.match(CHAIN_RE);
  p.chain = chain ? ` (${chain[1]})` : "";
  switch (ev.kind) {
    case "deal": {
      p.who = nm(d.dealer ?? ev.seat);
      p.hand_number = d.hand_number;
      const m = text.match(/deals (\d+) cards/);
      if (m) p.size = m[1];
      break;
    }
    case "swap": {
      const m = text.match(/: (\d+) for (\d+) \[/);
      if (m) [p.got, p.gave] = [m[1], m[2]];
      break;
    }
    case "pass_hands":
      p.way = t(text.includes("counterclockwise") ? "dir.ccw" : "dir.cw");
      break;
    case "discard_all":
      p.count = Array.isArray(d.cards) ? d.cards.length : undefined;
      break;
    case "reverse": {
      const m = text.match(/; (.+) is next \[/);
      if (m) p.next = m[1];
      break;
    }
    case "dealer": {
      const m = text.match(/^Cards drawn for the deal: (.*) \[CL-2\]$/);
      if (m) p.list = m[1];
      break;
    }
    case "start_card": {
      if (!d.card) {
        // The start card may be named only in the text ("Wild +4 cannot start: ...").
        p.card = text.split(/ (?:cannot start|is not a number card)/)[0];
      }
      break;
    }
    case "hand_end": {
      p.who = nm(d.winner ?? ev.seat);
      p.points = d.points;
      const cards = d.cards && typeof d.cards === "object" ? d.cards : {};
      const parts = Object.entries(cards).map(([s, pts]) => `${nm(Number(s))} ${pts}`);
      p.parts = parts.length ? parts.join(", ") : t("ev.no_cards");
      p.bonus = d.knocked_out ? t("ev.ko_bonus", { n: d.knocked_out }) : "";
      break;
    }
    case "match_end":
      p.points = Array.isArray(d.scores) && ev.seat !== null ? d.scores[ev.seat] : undefined;
      break;
    case "catch":
      p.who = nm(ev.seat);
      break;
    case "exhausted":
      break;
    default:
      break;
  }
  return p;
}

/** The event in the UI language: {text, rules}. */
export function translateEvent(ev, names) {
  const rules = ruleIds(ev.text);
  if (lang() === "en") return { text: stripRules(ev.text), rules };
  const key = variantKey(ev);
  if (!has(key)) return { text: stripRules(ev.text), rules };
  const params = eventParams(ev, names);
  const out = t(key, params);
  // A placeholder left unfilled means the data lacked something: use the English.
  if (/\{\w+\}/.test(out)) return { text: stripRules(ev.text), rules };
  return { text: out, rules };
}

/** The English text without its trailing rule ids (they are shown as a tag). */
export function stripRules(text) {
  const s = String(text || "");
  const rules = ruleIds(s);
  if (!rules) return s;
  const marker = `[${rules}]`;
  const at = s.lastIndexOf(marker);
  return (s.slice(0, at) + s.slice(at + marker.length)).replace(/\s+:/, ":").replace(/\s+$/, "");
}
