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

const WORD_LETTER = { red: "R", yellow: "Y", green: "G", blue: "B" };
const WILD_NAMES = {
  "Wild Reverse +4": "WR+4",
  "Wild +6": "W+6",
  "Wild +10": "W+10",
  "Colour Roulette": "WCR",
  Wild: "W",
  "Wild +4": "W+4",
};
const FACE_NAMES = { Skip: "S", Reverse: "R", "Skip Everyone": "SE", "Discard All": "DA" };

/** A card code from the engine's English card name ("red Skip" -> "RS"), or null. */
export function codeFromEnglish(name) {
  if (Object.hasOwn(WILD_NAMES, name)) return WILD_NAMES[name];
  const m = String(name).match(/^(red|yellow|green|blue) (.+)$/);
  if (!m) return null;
  const face = FACE_NAMES[m[2]] ?? m[2];
  return /^(\d|\+2|\+4|S|R|SE|DA)$/.test(face) ? WORD_LETTER[m[1]] + face : null;
}

/** The translated name of a card the English text names, or undefined. */
function cardFromText(name) {
  const code = codeFromEnglish(name);
  return code ? cardName(code) : undefined;
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
      if (text.includes("from the last card"))
        return text.includes("count in the score") ? "ev.absorb.last_card_own" : "ev.absorb.last_card";
      if (text.includes("start card")) return "ev.absorb.start_card";
      if (text.includes("Mercy limit")) return "ev.absorb.mercy";
      return "ev.absorb";
    case "stack":
      if (text.includes("winning card")) return "ev.stack.winning";
      if (text.includes("sends the penalty to")) return "ev.stack.passed";
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
      return "ev.draw";
    case "pass":
      return text.includes("Discard All") ? "ev.pass.discard_all" : "ev.pass";
    case "discard_all":
      // One card buried reads in the singular ("1 more red card ...; its effect").
      return Array.isArray(d.cards) && d.cards.length === 1 ? "ev.discard_all.one" : "ev.discard_all";
    case "deflect":
      return text.includes("sends the penalty back") ? "ev.deflect.back" : "ev.deflect";
    case "choose_colour":
      return text.includes("start Wild") ? "ev.choose_colour.start" : "ev.choose_colour";
    case "challenge":
      if (text.includes("succeeds")) return / held \w+ /.test(text) ? "ev.challenge.held" : "ev.challenge.succeeds";
      return "ev.challenge";
    case "hand_end":
      return (
        (d.scored === false
          ? "ev.hand_end.unscored"
          : d.points === undefined
            ? "ev.hand_end.lowest"
            : "ev.hand_end") +
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
  const codes = Array.isArray(d.cards) && d.cards.length ? d.cards.join(", ") : "";
  p.cards = codes ? ` (${codes})` : "";
  p.cards_list = codes ? `: ${codes}` : "";
  if (Array.isArray(d.cards) && d.cards.length && ev.kind === "draw")
    p.drawn = cardName(d.cards[d.cards.length - 1]);
  if (d.target !== undefined) p.target = nm(d.target);
  if (d.by !== undefined) p.by = nm(d.by);
  if (d.of !== undefined) p.of = nm(d.of);
  p.hand = Array.isArray(d.hand) ? `: ${d.hand.length ? d.hand.join(", ") : t("ev.no_cards")}` : "";
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
      // Every buried card has the Discard All's colour (NM-27).
      p.colour = Array.isArray(d.cards) && d.cards.length ? colourWord(d.cards[0][0]) : undefined;
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
        p.card = cardFromText(text.split(/ (?:cannot start|is not a number card)/)[0]);
      }
      break;
    }
    case "hand_end": {
      p.who = nm(d.winner ?? ev.seat);
      p.points = d.points;
      const cards = d.cards && typeof d.cards === "object" ? d.cards : {};
      const parts = Object.entries(cards).map(([s, pts]) => `${nm(Number(s))} ${pts}`);
      p.parts = parts.length ? parts.join(", ") : t("ev.no_cards");
      // The bonus per knock-out (A-option knockout_bonus) is what the points hold beyond the cards.
      const cardPoints = Object.values(cards).reduce((a, b) => a + Number(b), 0);
      const each = d.knocked_out ? (Number(d.points) - cardPoints) / d.knocked_out : 0;
      p.bonus = d.knocked_out && d.points !== undefined ? t("ev.ko_bonus", { n: d.knocked_out, each }) : "";
      break;
    }
    case "match_end":
      p.points = Array.isArray(d.scores) && ev.seat !== null ? d.scores[ev.seat] : undefined;
      break;
    case "catch":
      p.who = nm(ev.seat);
      break;
    case "reshuffle": {
      const m = text.match(/, (\d+) of them from knocked-out hands/);
      p.extra = m ? t("ev.reshuffle_extra", { n: m[1] }) : "";
      break;
    }
    case "challenge": {
      const m = text.match(/ held (\w+) /);
      if (m) p.colour = colourWord(WORD_LETTER[m[1]]);
      break;
    }
    case "jump_in": {
      const m = text.match(/identical (.+) \[/);
      if (m) p.card = cardFromText(m[1]);
      break;
    }
    case "deflect": {
      const m = text.match(/^(.+)'s (.+?) (?:sends the penalty back|passes the penalty on)/);
      if (m) [p.by, p.card] = [m[1], cardFromText(m[2])];
      break;
    }
    case "roulette": {
      const m = text.match(/^(.+) names \w+ for /);
      if (m) p.by = m[1];
      break;
    }
    default:
      break;
  }
  return p;
}

/**
 * The engine's English as the table words it: the engine keeps its text (the golden corpus pins
 * it) and says "card(s)"; the page says "1 more red card ...; its effect is ignored" or "3 more
 * red cards", and a classic penalty without its "last +N".
 */
export function engineWords(text) {
  // Classic has no stacking by value (CL-7): "Penalty 4, last +4: Bob must draw" is "Bob must
  // draw 4".
  const classic = String(text).match(/^Penalty (\d+), last \+\d+: (.+) must draw$/);
  if (classic) return `${classic[2]} must draw ${classic[1]}`;
  return String(text).replace(/\b(\d+) more (\w+) card\(s\)(.*?); their effects are ignored/, (m, n, colour, rest) =>
    n === "1" ? `1 more ${colour} card${rest}; its effect is ignored` : `${n} more ${colour} cards${rest}; their effects are ignored`,
  );
}

/** The engine's English with each seat's dealt name (`dealt`, the game's) replaced by the name
 * it goes by now (`names`: a late friend who took over a bot's seat). */
function renamed(text, names, dealt) {
  let out = text;
  (dealt || []).forEach((old, s) => {
    const now = names?.[s];
    if (!old || !now || now === old) return;
    const escaped = old.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    out = out.replace(new RegExp(`(?<![\\w])${escaped}(?![\\w])`, "g"), now);
  });
  return out;
}

/** The event in the UI language: {text, rules}; `dealt`: the names the game was dealt with,
 * when a seat now goes by another (see renamed). */
export function translateEvent(ev, names, dealt = null) {
  const rules = ruleIds(ev.text);
  const english = () => renamed(engineWords(stripRules(ev.text)), names, dealt);
  if (lang() === "en") return { text: english(), rules };
  const key = variantKey(ev);
  if (!has(key)) return { text: english(), rules };
  const params = eventParams(ev, names);
  const out = t(key, params);
  // A placeholder left unfilled means the data lacked something: use the English.
  if (/\{\w+\}/.test(out)) return { text: english(), rules };
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
