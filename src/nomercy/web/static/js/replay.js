// The replay page: step through a finished game with every hand shown (the game is over and
// its seed is published), the event texts of each move, and how to verify the deal.
import { api } from "./api.js";
import { cardElement, colourChip, escapeHtml, sortCards } from "./cards.js";
import { errorText } from "./errors.js";
import { translateEvent } from "./events.js";
import { initI18n, mountLanguagePicker, onLangChange, t } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const gameId = decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] || "");
let R = null;
let step = 0; // 0: the deal; k: after the k-th action
// The steps fetched so far (a long game comes a page at a time: docs/web-protocol.md), and the
// page requests made, by their first step.
let S = [];
const pages = new Map();
let slide = null;

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v);
  }
  e.append(...children);
  return e;
}

function frameAt(i) {
  return i === 0 ? R.start_frame : S[i - 1].frame;
}

// The first step of the page that holds step i's action (step 0, the deal: the first page).
const pageStart = (i) => (i === 0 ? 0 : Math.floor((i - 1) / R.page) * R.page);

function loadPage(start) {
  if (!pages.has(start)) {
    const request = api(`/api/replays/${encodeURIComponent(gameId)}?from=${start}&count=${R.page}`).then((data) => {
      data.steps.forEach((s, k) => { S[start + k] = s; });
    });
    request.catch(() => pages.delete(start)); // asked again on the next step there
    pages.set(start, request);
  }
  return pages.get(start);
}

function render() {
  const total = R.steps_total;
  const f = frameAt(step);
  const names = R.names;
  $("slider").max = String(total);
  $("slider").value = String(step);
  $("step-label").textContent = step === 0 ? t("replay.start") : t("replay.step", { n: step, total });
  $("step-action").textContent = step === 0 ? "—" : `${names[S[step - 1].seat] ?? ""}: ${S[step - 1].action}`;
  $("prev-btn").disabled = $("first-btn").disabled = step === 0;
  $("next-btn").disabled = $("last-btn").disabled = step === total;
  $("top-card").replaceChildren(f.top ? cardElement(f.top) : el("div", { class: "card empty" }));
  const ac = $("active-colour");
  ac.replaceChildren();
  if (f.colour) {
    ac.className = "active-colour";
    ac.append(el("span", { class: "label", text: t("table.colour") }), colourChip(f.colour));
  } else {
    ac.className = "active-colour none";
    ac.append(el("span", { class: "label", text: t("table.colour_unnamed") }));
  }
  const cw = f.direction === 1;
  $("direction").innerHTML = `<span class="arrow" aria-hidden="true">${cw ? "↻" : "↺"}</span> ${escapeHtml(t(cw ? "dir.cw" : "dir.ccw"))}`;
  if (f.pending && f.pending.total) {
    $("pending").hidden = false;
    $("pending").textContent = t("table.pending", { total: f.pending.total, last: f.pending.last });
  } else $("pending").hidden = true;
  $("pile-size").textContent = t("table.pile", { n: f.draw_pile_size });
  const hands = $("hands");
  hands.replaceChildren();
  f.players.forEach((p, s) => {
    const box = el("div", { class: `rh${f.to_act === s ? " turn" : ""}`, "data-seat": String(s) });
    const size = (f.hands?.[s] || []).length;
    const info = [size === 1 ? t("table.card_one") : t("table.cards", { n: size })];
    if (p.mercy_distance !== null && p.mercy_distance !== undefined && !p.out) info.push(t("table.mercy", { n: p.mercy_distance }));
    if (p.out) info.push(t("table.out"));
    if (p.uno) info.push(t("table.uno_called"));
    box.append(el("strong", { text: p.name }), " ", el("span", { class: "small", text: `(${R.seats?.[s] ?? ""}) · ${info.join(" · ")}` }));
    const cards = el("div", { class: "cards" });
    for (const c of sortCards(f.hands?.[s] || [])) cards.append(cardElement(c));
    box.append(cards);
    hands.append(box);
  });
  const log = $("log");
  log.replaceChildren();
  const add = (ev, current) => {
    const { text, rules } = translateEvent(ev, names);
    const li = el("li", { class: `ev ev-${ev.kind}${current ? " current" : ""}` }, el("span", { text }));
    if (rules) li.append(" ", el("span", { class: "rule", text: rules }));
    log.append(li);
    return li;
  };
  // The log holds the current page's steps up to this one (a long game is not sent whole).
  const first = pageStart(step);
  if (first === 0) for (const ev of R.opening || []) add(ev, step === 0);
  let last = null;
  for (let i = first; i < step; i++) {
    log.append(el("li", { class: "replay-step small muted", text: `${i + 1}. ${names[S[i].seat] ?? ""}: ${S[i].action}` }));
    for (const ev of S[i].events) last = add(ev, i === step - 1);
  }
  // Scroll the log itself to the current step: scrollIntoView would scroll the page too (on a
  // phone the log lies below the controls, and the Next button went off screen on every step).
  const current = last || log.lastElementChild;
  if (current) {
    const box = log.getBoundingClientRect();
    const r = current.getBoundingClientRect();
    if (r.bottom > box.bottom || r.top < box.top) log.scrollTop += r.top - box.top - (box.height - r.height) / 2;
  }
}

async function go(i) {
  step = Math.max(0, Math.min(R.steps_total, i));
  const start = pageStart(step);
  if (step > 0 && S[step - 1] === undefined) {
    try {
      await loadPage(start);
    } catch (err) {
      $("notice").textContent = errorText(err.code, err.message);
      $("notice").hidden = false;
      return;
    }
    if (pageStart(step) !== start) return; // moved on meanwhile: that step renders
  }
  $("notice").hidden = true;
  render();
}

async function main() {
  await initI18n();
  mountLanguagePicker($("lang"));
  $("game-id").textContent = gameId;
  try {
    R = await api(`/api/replays/${encodeURIComponent(gameId)}`);
  } catch (err) {
    $("notice").textContent = errorText(err.code, err.message);
    $("notice").hidden = false;
    return;
  }
  S = new Array(R.steps_total);
  R.steps.forEach((s, k) => { S[k] = s; });
  $("replay").hidden = false;
  $("seed").textContent = String(R.seed);
  const res = R.result || R.record?.result || {};
  $("result").textContent = res.winner !== null && res.winner !== undefined ? t("replay.winner", { name: R.names[res.winner] }) : "—";
  const url = `/api/replays/${encodeURIComponent(gameId)}?format=record`;
  $("download").href = url;
  $("download").setAttribute("download", `nomercy-${gameId}.json`);
  $("verify-cmd").textContent =
    `curl -o nomercy-${gameId}.json '${location.origin}${url}'\n` + `nomercy replay nomercy-${gameId}.json`;
  $("first-btn").addEventListener("click", () => go(0));
  $("prev-btn").addEventListener("click", () => go(step - 1));
  $("next-btn").addEventListener("click", () => go(step + 1));
  $("last-btn").addEventListener("click", () => go(R.steps_total));
  $("slider").addEventListener("input", () => {
    // Dragging across a long game asks for the page where it stops, not for every page.
    const target = Number($("slider").value);
    clearTimeout(slide);
    if (target === 0 || S[target - 1] !== undefined) go(target);
    else slide = setTimeout(() => go(target), 200);
  });
  document.addEventListener("keydown", (e) => {
    if (e.target.closest("input, select")) return;
    if (e.key === "ArrowRight") go(step + 1);
    else if (e.key === "ArrowLeft") go(step - 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(R.steps_total);
  });
  onLangChange(render);
  render();
}

main();
