// The lobby page: create a room with every option, or go to a room by code.
import { api, lastName, rememberName, saveSeat } from "./api.js";
import { has, initI18n, mountLanguagePicker, onLangChange, optionLabel, optionValue, t } from "./i18n.js";
import { errorText } from "./errors.js";

let meta = null;

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

function showNotice(text) {
  const box = document.getElementById("notice");
  box.textContent = text;
  box.hidden = !text;
}

function fillSelect(select, items, label) {
  select.replaceChildren(...items.map((v) => el("option", { value: String(v), text: label(v) })));
}

// The bot picker: the levels first, each with the algorithm it plays at this preset (for
// those who care), then every algorithm by name. A level is sent as such; the server seats
// its bot for the room's preset.
function fillBots(select, preset) {
  const keep = select.value;
  const levels = meta.levels?.[preset] ?? {};
  const levelOptions = Object.entries(levels).map(([level, bot]) =>
    el("option", { value: level, text: t("lobby.bot_level", { level: t(`level.${level}`), bot }) }),
  );
  const algorithms = meta.bots.map((b) => el("option", { value: b, text: b }));
  select.replaceChildren(
    el("optgroup", { label: t("lobby.bot_levels") }, ...levelOptions),
    el("optgroup", { label: t("lobby.bot_algorithms") }, ...algorithms),
  );
  select.value = keep || "medium";
  if (!select.value) select.value = "medium";
}

function presetLabel(p) {
  return t(`preset.${p}`);
}

function timerLabel(s) {
  return s ? t("lobby.timer_seconds", { n: s }) : t("lobby.timer_off");
}

function renderOptions() {
  const preset = document.getElementById("preset").value;
  const list = document.getElementById("options-list");
  const old = collectOptions(true);
  list.replaceChildren();
  for (const opt of meta.options) {
    if (!Object.hasOwn(opt.defaults, preset)) continue; // not an option of this preset
    if (opt.name === "scoring_enabled") continue; // the Length choice (mode) sets it
    const id = `opt-${opt.name}`;
    const def = opt.defaults[preset];
    let input;
    if (opt.kind === "bool") {
      input = el("input", { type: "checkbox", id });
      input.checked = Boolean(def);
    } else if (opt.kind === "choice") {
      input = el("select", { id });
      fillSelect(input, opt.values, (v) => optionValue(opt.name, v));
      input.value = String(def);
    } else if (opt.kind === "counts") {
      // A custom deck table (A35): card code -> copies, as JSON.
      input = el("textarea", { id, rows: "3", spellcheck: "false" });
      input.value = def === null || def === undefined ? "" : JSON.stringify(def);
    } else {
      input = el("input", { type: "number", id, step: "1" });
      if (opt.minimum !== undefined && opt.minimum !== null) input.min = String(opt.minimum);
      if (opt.maximum !== undefined && opt.maximum !== null) input.max = String(opt.maximum);
      if (Array.isArray(opt.values) && opt.values.length) {
        input.min = String(Math.min(...opt.values));
        input.max = String(Math.max(...opt.values));
      }
      input.value = def === null || def === undefined ? "" : String(def);
    }
    input.dataset.option = opt.name;
    input.dataset.kind = opt.kind;
    input.dataset.default = JSON.stringify(def ?? null);
    if (old && Object.hasOwn(old, opt.name)) setValue(input, old[opt.name]);
    input.addEventListener("change", updateChanged);
    const row = el(
      "div",
      { class: "option" },
      // A human label (translated); the option's name (RULES.md §6, --option NAME=VALUE) is
      // its tooltip for those who know the rule book.
      el(
        "label",
        { for: id, title: opt.name },
        el("span", { class: "optlabel", text: optionLabel(opt.name) }),
        " ",
        el("span", { class: "rule", text: opt.rule }),
      ),
      input,
      // The engine's explanation, translated where the language file has it (opt.<name>).
      el("p", { class: "help", text: has(`opt.${opt.name}`) ? t(`opt.${opt.name}`) : opt.help }),
    );
    list.append(row);
  }
  updateChanged();
}

function setValue(input, value) {
  if (input.dataset.kind === "bool") input.checked = Boolean(value);
  else input.value = String(value);
}

function valueOf(input) {
  if (input.dataset.kind === "bool") return input.checked;
  if (input.dataset.kind === "int") return input.value === "" ? null : Number(input.value);
  if (input.dataset.kind === "counts") {
    if (!input.value.trim()) return null;
    try {
      return JSON.parse(input.value);
    } catch {
      return input.value; // the server names the problem
    }
  }
  return input.value;
}

/** Options that differ from the preset's defaults (all of them when `all`). */
function collectOptions(all = false) {
  const out = {};
  for (const input of document.querySelectorAll("#options-list [data-option]")) {
    const v = valueOf(input);
    if (all || JSON.stringify(v) !== input.dataset.default) out[input.dataset.option] = v;
  }
  return out;
}

function updateChanged() {
  const n = Object.keys(collectOptions()).length;
  document.getElementById("options-changed").textContent = n ? t("lobby.options_changed", { n }) : "";
}

async function create(ev) {
  ev.preventDefault();
  showNotice("");
  const form = ev.target;
  const hostName = form.host_name.value.trim();
  const name = form.name.value.trim() || t("lobby.default_room", { name: hostName });
  if (!hostName) {
    showNotice(t("err.need_name"));
    form.host_name.focus();
    return;
  }
  const body = {
    name,
    host_name: hostName,
    preset: form.preset.value,
    options: collectOptions(),
    seats: Number(form.seats.value),
    bot: form.bot.value,
    timer: Number(form.timer.value),
    mode: form.querySelector("input[name=mode]:checked").value,
    hints: form.hints.value !== "off",
  };
  const button = document.getElementById("create-btn");
  button.disabled = true;
  try {
    const res = await api("/api/rooms", body);
    rememberName(hostName);
    saveSeat(res.code, res.seat, res.token);
    location.href = res.invite || `/r/${res.code}`;
  } catch (err) {
    showNotice(errorText(err.code, err.message));
    button.disabled = false;
  }
}

function join(ev) {
  ev.preventDefault();
  const code = ev.target.code.value.trim().toUpperCase().replace(/[^A-Z0-9]/g, "");
  if (!code) {
    showNotice(t("err.need_code"));
    return;
  }
  location.href = `/r/${encodeURIComponent(code)}`;
}

function relabel() {
  const f = document.getElementById("create-form");
  const keep = [f.preset.value, f.timer.value];
  fillSelect(f.preset, meta.presets, presetLabel);
  fillSelect(f.timer, meta.timers, timerLabel);
  [f.preset.value, f.timer.value] = keep;
  fillBots(f.bot, f.preset.value);
  renderOptions(); // keeps the values chosen so far
  updateChanged();
}

async function main() {
  await initI18n();
  mountLanguagePicker(document.getElementById("lang"));
  // The saved name only fills an empty field: someone may have typed before this script ran.
  const hostName = document.getElementById("host-name");
  if (!hostName.value) hostName.value = lastName();
  try {
    meta = await api("/api/meta");
  } catch (err) {
    showNotice(errorText(err.code, err.message));
    return;
  }
  const f = document.getElementById("create-form");
  fillSelect(f.preset, meta.presets, presetLabel);
  fillBots(f.bot, f.preset.value);
  fillSelect(f.timer, meta.timers, timerLabel);
  f.seats.min = String(meta.min_seats);
  f.seats.max = String(meta.max_seats);
  const limitSeats = () => {
    const max = meta.max_seats_by_preset?.[f.preset.value] ?? meta.max_seats;
    f.seats.max = String(max);
    if (Number(f.seats.value) > max) f.seats.value = String(max);
  };
  limitSeats();
  f.preset.addEventListener("change", () => {
    limitSeats();
    fillBots(f.bot, f.preset.value); // a level's bot depends on the preset
    // A new preset brings its own defaults.
    document.getElementById("options-list").replaceChildren();
    renderOptions();
  });
  document.getElementById("reset-options").addEventListener("click", () => {
    document.getElementById("options-list").replaceChildren();
    renderOptions();
  });
  renderOptions();
  f.addEventListener("submit", create);
  document.getElementById("join-form").addEventListener("submit", join);
  onLangChange(relabel);
}

main();
