// The rules in the game: every rule id the table cites (NM-30, CL-8, A24, EX-19) opens its text
// from RULES.md (GET /api/rules, nomercy.tables.rulebook), and a card opens the rules that say
// what it does. The rule text exists in English only: other languages get their labels, a note
// saying so, and the translated explanations of the options a rule id names.
import { lang, optionLabel, t } from "./i18n.js";

/** A rule id as the engine cites it (the server's rulebook.RULE_ID). */
export const RULE_ID = /\b(?:NM-\d{1,2}|CL-\d{1,2}|EX-\d{2}|CX-\d{2}|A\d{2}|C\d{2})\b/g;

let loading = null;

/** RULES.md by id, the rules of each card face per preset, the options each id names. */
export function loadRules() {
  loading ||= fetch("/api/rules")
    .then((res) => {
      if (!res.ok) throw new Error(`rules: HTTP ${res.status}`);
      return res.json();
    })
    .then((data) => ({ byId: new Map(data.rules.map((r) => [r.id, r])), list: data.rules, cards: data.cards, options: data.options || {} }))
    .catch((err) => {
      loading = null; // try again next time
      throw err;
    });
  return loading;
}

/** `text` as nodes, each rule id in it a button that opens the rule (other text kept as is,
 * so the text reads the same). */
export function ruleNodes(text) {
  const s = String(text ?? "");
  const out = [];
  let at = 0;
  for (const m of s.matchAll(RULE_ID)) {
    if (m.index > at) out.push(document.createTextNode(s.slice(at, m.index)));
    out.push(ruleButton(m[0]));
    at = m.index + m[0].length;
  }
  if (at < s.length) out.push(document.createTextNode(s.slice(at)));
  return out;
}

/** A button that opens rule `id` (the click is handled once, for the page: watchRuleClicks). */
export function ruleButton(id) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "rule-link";
  b.dataset.rule = id;
  b.textContent = id;
  b.title = t("rules.open", { id });
  return b;
}

/** The rule ids that say what card `code` does under `preset` ([] if unknown). */
export function cardRuleIds(data, code, preset) {
  const face = code.startsWith("W") ? code : code.slice(1);
  return data.cards?.[preset]?.[face] || data.cards?.["no-mercy"]?.[face] || [];
}

/** One rule as an article: id and title, where it stands, its text (English), and the
 * translated explanations of the options it names. */
export function ruleArticle(data, id) {
  const r = data.byId.get(id);
  const art = document.createElement("article");
  art.className = "rule-text";
  art.id = `rule-${id}`;
  const h = document.createElement("h4");
  h.textContent = r ? (r.title ? `${id} · ${r.title}` : id) : id;
  art.append(h);
  if (!r) {
    art.append(para(t("rules.unknown", { id }), "muted"));
    return art;
  }
  if (r.section) art.append(para(r.section, "muted small"));
  const body = para(r.plain, "rule-body");
  body.lang = "en";
  art.append(body);
  const options = data.options[id] || [];
  if (options.length) {
    const list = document.createElement("ul");
    list.className = "rule-options";
    for (const name of options) {
      const li = document.createElement("li");
      const code = document.createElement("code");
      code.textContent = name;
      li.append(code, `: ${optionLabel(name)} — ${t(`opt.${name}`)}`);
      list.append(li);
    }
    art.append(para(t("rules.options"), "small"), list);
  }
  return art;
}

function para(text, cls = "") {
  const p = document.createElement("p");
  if (cls) p.className = cls;
  p.textContent = text;
  return p;
}

/** Open the rule dialog (#rule) on `ids`, titled `title` (default: the first id's). */
export async function openRules(ids, title = null) {
  const box = document.getElementById("rule");
  const body = document.getElementById("rule-body");
  document.getElementById("rule-title").textContent = title || t("rules.title");
  body.replaceChildren(para(t("rules.loading"), "muted"));
  box.hidden = false;
  let data;
  try {
    data = await loadRules();
  } catch {
    body.replaceChildren(para(t("rules.unavailable"), "muted"));
    return;
  }
  body.replaceChildren();
  if (lang() !== "en") body.append(para(t("rules.english"), "muted small"));
  if (!ids.length) body.append(para(t("rules.none"), "muted"));
  for (const id of ids) body.append(ruleArticle(data, id));
  const all = document.getElementById("rule-all");
  if (all) all.href = ids.length ? `/rules#${ids[0]}` : "/rules";
  document.getElementById("rule-close").focus();
}

export function closeRules() {
  document.getElementById("rule").hidden = true;
}

/** Clicks on any rule button of the page open that rule; the dialog's Close closes it. */
export function watchRuleClicks() {
  document.addEventListener("click", (e) => {
    const b = e.target.closest?.("[data-rule]");
    if (!b) return;
    e.preventDefault();
    openRules([b.dataset.rule]);
  });
  document.getElementById("rule-close")?.addEventListener("click", closeRules);
  document.getElementById("rule")?.addEventListener("click", (e) => {
    if (e.target.id === "rule") closeRules(); // a click outside the dialog
  });
}
