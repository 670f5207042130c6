// The /rules page: RULES.md's rules by id (GET /api/rules), grouped as RULES.md groups them;
// /rules#NM-30 opens on that rule.
import { applyDom, initI18n, lang, mountLanguagePicker, onLangChange, t } from "./i18n.js";
import { loadRules, ruleArticle } from "./rulebook.js";

const $ = (id) => document.getElementById(id);

function render(data) {
  $("rules-english").hidden = lang() === "en";
  const list = $("rules-list");
  const nav = $("rules-nav");
  list.replaceChildren();
  nav.replaceChildren();
  let group = null;
  for (const r of data.list) {
    if (!group || group.dataset.section !== r.section) {
      group = document.createElement("section");
      group.className = "rules-group panel";
      group.dataset.section = r.section;
      const h = document.createElement("h2");
      h.textContent = r.section;
      group.append(h);
      list.append(group);
      const link = document.createElement("a");
      link.href = `#rule-${r.id}`;
      link.textContent = r.section;
      nav.append(link);
    }
    const art = ruleArticle(data, r.id);
    art.id = r.id; // /rules#NM-30
    group.append(art);
  }
  const wanted = decodeURIComponent(location.hash.slice(1));
  if (wanted) document.getElementById(wanted)?.scrollIntoView({ block: "start" });
}

async function main() {
  await initI18n();
  mountLanguagePicker($("lang"));
  let data;
  try {
    data = await loadRules();
  } catch {
    $("notice").textContent = t("rules.unavailable");
    $("notice").hidden = false;
    return;
  }
  render(data);
  onLangChange(() => {
    applyDom();
    render(data);
  });
}

main();
