// UI language: chosen from the browser, switchable, remembered in localStorage.
// Strings live in /static/i18n/{lang}.json; a missing key falls back to English.

export const LANGUAGES = ["en", "fi", "ru", "de", "tr"];
const STORE_KEY = "nomercy.lang";
const cache = {};
let current = "en";
const listeners = [];

function pickInitial() {
  const saved = localStorage.getItem(STORE_KEY);
  if (saved && LANGUAGES.includes(saved)) return saved;
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return "en";
}

async function load(lang) {
  if (!cache[lang]) {
    const res = await fetch(`/static/i18n/${lang}.json`);
    if (!res.ok) throw new Error(`cannot load language ${lang}: HTTP ${res.status}`);
    cache[lang] = await res.json();
  }
  return cache[lang];
}

/** Load English (the fallback) and the chosen language; returns the language code. */
export async function initI18n() {
  await load("en");
  const lang = pickInitial();
  try {
    await load(lang);
    current = lang;
  } catch (err) {
    console.warn(err);
    current = "en";
  }
  document.documentElement.lang = current;
  applyDom();
  return current;
}

export function lang() {
  return current;
}

export async function setLang(code) {
  if (!LANGUAGES.includes(code)) return;
  await load(code);
  current = code;
  localStorage.setItem(STORE_KEY, code);
  document.documentElement.lang = code;
  applyDom();
  for (const fn of listeners) fn(code);
}

export function onLangChange(fn) {
  listeners.push(fn);
}

/** Whether the current language (not the English fallback) has this key. */
export function has(key, code = current) {
  return Boolean(cache[code]) && Object.hasOwn(cache[code], key);
}

/** The string for key with {name} placeholders filled; English if the language lacks it. */
export function t(key, params = {}) {
  let s = cache[current]?.[key];
  if (s === undefined) s = cache.en?.[key];
  if (s === undefined) return key;
  return fill(s, params);
}

export function fill(template, params) {
  return template.replace(/\{(\w+)\}/g, (m, name) =>
    Object.hasOwn(params, name) && params[name] !== undefined && params[name] !== null
      ? String(params[name])
      : m,
  );
}

/** Translate the static DOM: data-i18n (text), data-i18n-title, data-i18n-placeholder, data-i18n-aria. */
export function applyDom(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-title]")) el.title = t(el.dataset.i18nTitle);
  for (const el of root.querySelectorAll("[data-i18n-placeholder]"))
    el.placeholder = t(el.dataset.i18nPlaceholder);
  for (const el of root.querySelectorAll("[data-i18n-aria]"))
    el.setAttribute("aria-label", t(el.dataset.i18nAria));
}

/** Fill a <select> with the languages, each named in its own language. */
export function mountLanguagePicker(select) {
  select.replaceChildren();
  for (const code of LANGUAGES) {
    const opt = document.createElement("option");
    opt.value = code;
    opt.textContent = NATIVE_NAMES[code];
    select.append(opt);
  }
  select.value = current;
  select.addEventListener("change", () => setLang(select.value));
  onLangChange((code) => {
    select.value = code;
  });
}

const NATIVE_NAMES = { en: "English", fi: "Suomi", ru: "Русский", de: "Deutsch", tr: "Türkçe" };

/** A rule option's human label (optlabel.NAME), else its name. */
export function optionLabel(name) {
  return has(`optlabel.${name}`) ? t(`optlabel.${name}`) : name;
}

/** A rule option's value in words: yes/no, optval.NAME.VALUE, else the value itself (numbers). */
export function optionValue(name, value) {
  if (typeof value === "boolean") return t(`optval.${value}`);
  if (has(`optval.${name}.${value}`)) return t(`optval.${name}.${value}`);
  if (value !== null && typeof value === "object") return JSON.stringify(value);
  return String(value);
}
