// Server errors in polite words: by the protocol's reason code, with the server's message
// (the engine's rule text for `illegal`) kept where it says more.
import { has, t } from "./i18n.js";

export function errorText(code, message) {
  const key = `err.${code}`;
  if (code === "illegal" && message) return t("err.illegal", { message });
  if (code && has(key, "en")) return t(key, { message: message || "" });
  return message ? t("err.generic", { message }) : t("err.unknown");
}
