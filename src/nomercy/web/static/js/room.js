// The room page: join or watch, wait in the lobby, then play at the table over the WebSocket.
import { api, forgetSeat, lastName, rememberName, savedSeat, saveSeat } from "./api.js";
import { COLOURS, cardBack, cardElement, cardName, colourChip, colourWord, escapeHtml, shapeSvg, sortCards } from "./cards.js";
import { errorText } from "./errors.js";
import { bump, cue, flipIn, flyFrom, setSound, soundOn } from "./feel.js";
import { translateEvent } from "./events.js";
import { parseLegal } from "./legal.js";
import { applyDom, has, initI18n, mountLanguagePicker, onLangChange, optionLabel, optionValue, t } from "./i18n.js";
import { cardRuleIds, closeRules, loadRules, openRules, ruleNodes, watchRuleClicks } from "./rulebook.js";

const $ = (id) => document.getElementById(id);
/** The quick reactions (web/reactions.py REACTIONS), each with the emoji the table shows. */
const REACTIONS = { thumbs_up: "👍", laugh: "😂", wow: "😮", ouch: "😬", clap: "👏", good_game: "🤝" };
/** The sound switch's icons, drawn here so they show without an emoji font (a speaker with
 * waves: on; crossed out: off). */
const SPEAKER = '<path d="M3 9h4l5-4v14l-5-4H3z"/>';
const SOUND_ICONS = {
  on: `<svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false" fill="currentColor">${SPEAKER}<path d="M15 8.5a5 5 0 0 1 0 7M17.5 6a8.5 8.5 0 0 1 0 12" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"/></svg>`,
  off: `<svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false" fill="currentColor">${SPEAKER}<path d="M15.5 9.5l5 5m0-5l-5 5" stroke="currentColor" stroke-width="2" stroke-linecap="round"/></svg>`,
};

/**
 * Whether this system draws the reactions' emoji in colour. Without an emoji font 👍 is an
 * empty box, so the reactions then show their names instead (checked once, on a canvas: an
 * emoji font paints coloured pixels, a missing or monochrome glyph grey ones).
 */
function colourEmoji() {
  try {
    const canvas = document.createElement("canvas");
    canvas.width = canvas.height = 32;
    const g = canvas.getContext("2d", { willReadFrequently: true });
    g.textBaseline = "top";
    g.font = "24px sans-serif";
    for (const emoji of Object.values(REACTIONS)) {
      g.clearRect(0, 0, 32, 32);
      g.fillStyle = "#000";
      g.fillText(emoji, 0, 0);
      const px = g.getImageData(0, 0, 32, 32).data;
      let coloured = false;
      for (let i = 0; i < px.length && !coloured; i += 4) coloured = px[i + 3] > 0 && (px[i] !== px[i + 1] || px[i + 1] !== px[i + 2]);
      if (!coloured) return false;
    }
    return true;
  } catch {
    return false;
  }
}
const EMOJI = colourEmoji();
document.documentElement.dataset.emoji = EMOJI ? "1" : "0";

/** How a reaction shows: its emoji, or its name where the system has no emoji font. */
function reactionFace(key) {
  return EMOJI ? REACTIONS[key] : t(`react.${key}`);
}

/** Seconds between two reactions of a seat (the server's REACTION_EVERY). */
const REACTION_EVERY = 2;
// The protocol version this client speaks (docs/web-protocol.md "Protocol version").
const PROTOCOL = 2;
const code = decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] || "").toUpperCase();

const S = {
  room: null,
  seat: null, // our seat, null for a spectator
  token: null,
  ws: null,
  wantSocket: false,
  retry: 0,
  view: null,
  legal: [],
  actions: null, // parsed legal actions
  log: [], // raw event dicts, translated on render
  logFrom: 0, // index in the hand's public history of S.log[0] (> 0: older events to ask for)
  logHand: null, // the hand S.logFrom counts in
  timer: null,
  selected: 0,
  unoArmed: false,
  picker: null, // {options, resolve}
  handEndShown: null,
  gotState: false,
  move: null, // the number of actions played in this game (the state's move)
  hint: null, // the coach's last hint message for this moment
  hintPending: false,
};

// ------------------------------------------------------------------ small helpers
function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k === "html") e.innerHTML = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  e.append(...children.filter((c) => c !== null && c !== undefined));
  return e;
}

function toast(text, kind = "error", key = null) {
  // A toast with a key replaces the one shown with that key (no pile of identical toasts).
  if (key) for (const old of $("toasts").querySelectorAll(`[data-key="${key}"]`)) old.remove();
  const box = el("div", { class: `toast ${kind}`, text });
  if (key) box.dataset.key = key;
  $("toasts").append(box);
  setTimeout(() => box.remove(), kind === "error" ? 7000 : 3500);
}

/** "N cards", with the singular for one. */
function cardsText(n) {
  return n === 1 ? t("table.card_one") : t("table.cards", { n });
}

/** Whether these rules stack draw penalties (No Mercy, or classic with its house rule). */
function stacking() {
  const rules = S.view?.rules;
  return !rules || rules.preset === "no-mercy" || Boolean(rules.options?.classic_stacking);
}

/** One piece of advice (a move's consequence), translated where the language has it. */
function adviceText(a) {
  const data = { ...(a.data || {}) };
  if (data.colour) data.colour = colourWord(data.colour);
  const rules = a.rules && a.rules.length ? ` [${a.rules.join(", ")}]` : "";
  // A template for one card where the count is one ("you get P1's only card", "your other
  // red card").
  const one = data.size === 1 || data.count === 1;
  const key = one && has(`advice.${a.kind}_one`) ? `advice.${a.kind}_one` : `advice.${a.kind}`;
  return has(key) ? oneCard(t(key, data)) + rules : a.text;
}

/** English templates say "{n} cards": one card reads "1 card". */
function oneCard(text) {
  return text.replace(/\b1 cards\b/g, "1 card");
}

/** The advice on the actions in `texts` (engine notation), each once. */
function adviceFor(texts) {
  const seen = new Map();
  for (const text of texts) for (const a of S.advice?.[text] || []) seen.set(a.kind + JSON.stringify(a.data), a);
  return [...seen.values()];
}

/** An action (engine notation) in words: the card, its colour and target, or the verb. */
function actionText(text) {
  const words = String(text).replace(/^\d+:\s*/, "").split(/\s+/);
  const verb = words[0];
  if (verb === "play") {
    let out = cardName(words[1]);
    for (const w of words.slice(2)) {
      if (/^[RYGB]$/.test(w)) out += ` → ${colourWord(w)}`;
      else if (/^\d+$/.test(w)) out += ` ⇄ ${names()[Number(w)] ?? w}`;
      else if (w === "uno") out += ` + ${t("table.uno")}`;
    }
    return out;
  }
  if (verb === "draw") return S.view?.phase === "stack_or_absorb" && S.view?.pending ? t("table.take", { n: S.view.pending.total }) : t("table.draw");
  if (verb === "pass") return t(S.view?.phase === "discard_all_top" ? "table.keep_da" : S.view?.phase === "discard_all_subset" ? "table.stop_da" : "table.keep");
  if (verb === "colour") return `${t("picker.colour")}: ${colourWord(words[1])}`;
  if (verb === "uno") return t("table.uno_now");
  if (verb === "catch") return t("table.catch", { name: (S.view ? names()[Number(words[1])] : null) ?? words[1] });
  if (verb === "challenge") return t("table.challenge");
  return text;
}

/** The coach's reason, in the player's language where the template exists. */
function reasonText(r) {
  const data = { ...(r.data || {}) };
  if (data.colour) data.colour = colourWord(data.colour);
  if (data.card) data.card = cardName(data.card);
  if (data.alt) data.alt_card = actionText(data.alt);
  else if (data.alt_card) data.alt_card = cardName(data.alt_card);
  const rules = r.rules && r.rules.length ? ` [${r.rules.join(", ")}]` : "";
  return has(`coach.${r.kind}`) ? oneCard(t(`coach.${r.kind}`, data)) + rules : r.text;
}

function notice(text) {
  $("notice").textContent = text || "";
  $("notice").hidden = !text;
}

function names() {
  if (S.view) return S.view.players.map((p) => seatName(p.seat, p.name));
  return (S.room?.seats || []).map((s) => s.name || `P${s.seat}`);
}

/** A seat's name at the table: the game's, or the person who took the seat over from its bot
 * during the game (the game keeps the name it was dealt with: its record does). */
function seatName(seat, dealt) {
  const s = S.room?.seats?.[seat];
  return s && s.kind === "human" && s.name ? s.name : dealt;
}

function show(id, on) {
  $(id).hidden = !on;
}

// ------------------------------------------------------------------ socket
function wsUrl() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  return `${proto}//${location.host}/ws/${encodeURIComponent(code)}`;
}

function connect() {
  S.wantSocket = true;
  setConn(t("conn.connecting"));
  const ws = new WebSocket(wsUrl());
  S.ws = ws;
  ws.addEventListener("open", () => {
    S.retry = 0;
    setConn("");
    const hello = { type: "hello" };
    if (S.token) hello.token = S.token;
    // Kept as the last message: a hello over the address's budget (rate_limited) is sent once
    // more a moment later, like any other message.
    S.lastSent = { msg: hello, retried: false };
    ws.send(JSON.stringify(hello));
  });
  ws.addEventListener("message", (e) => {
    let msg;
    try {
      msg = JSON.parse(e.data);
    } catch {
      return;
    }
    onMessage(msg);
  });
  ws.addEventListener("close", (e) => {
    if (S.ws !== ws) return;
    S.ws = null;
    // 4404: the room is gone; 1008/1009: the server closed us for abuse. Do not knock again.
    if ([4404, 1008, 1009].includes(e.code)) S.wantSocket = false;
    if (!S.wantSocket) {
      setConn(t("conn.closed"));
      return;
    }
    setConn(t("conn.reconnecting"));
    const delay = Math.min(10000, 500 * 2 ** S.retry++);
    setTimeout(() => S.wantSocket && !S.ws && connect(), delay);
  });
}

function send(msg, retry = false) {
  if (S.ws && S.ws.readyState === WebSocket.OPEN) {
    if (msg.type !== "ping") S.lastSent = { msg, retried: retry };
    S.ws.send(JSON.stringify(msg));
    return true;
  }
  toast(t("err.offline"));
  return false;
}

function act(action) {
  if (!action) return;
  S.unoArmed = false;
  // Busy until the server answers (a state or an error), so a double click sends one action.
  if (send({ type: "action", action })) document.body.dataset.busy = "1";
}

function setConn(text) {
  $("conn").textContent = text;
}

setInterval(() => {
  if (S.ws && S.ws.readyState === WebSocket.OPEN) S.ws.send(JSON.stringify({ type: "ping" }));
}, 25000);

function onMessage(msg) {
  switch (msg.type) {
    case "welcome":
      // After a (re)connection the next state's history is the whole log of this hand.
      S.gotState = false;
      // A server of another protocol version: this page is stale (the server was updated).
      if (msg.protocol !== undefined && msg.protocol !== PROTOCOL) notice(t("conn.protocol"));
      S.seat = msg.seat ?? null;
      if (S.seat !== null && S.token) saveSeat(code, S.seat, S.token);
      if (msg.room) setRoom(msg.room);
      break;
    case "room":
      setRoom(msg.room);
      break;
    case "state":
      onState(msg);
      break;
    case "error":
      onError(msg);
      break;
    case "hint":
      onHint(msg);
      break;
    case "history":
      onHistory(msg);
      break;
    case "reaction":
      showReaction(msg);
      break;
    case "seat_taken":
      onSeatTaken(msg);
      break;
    case "pong":
      break;
    default:
      break;
  }
}

function onError(msg) {
  // Over the server's rate limit: wait a moment and send the same message once more
  // (docs/web-protocol.md), quietly.
  const last = S.lastSent;
  if (msg.code === "rate_limited" && last && !last.retried) {
    setTimeout(() => send(last.msg, true), 700);
    return;
  }
  if (["hints_off", "hint_busy", "no_hint"].includes(msg.code) || (S.hintPending && msg.code === "not_your_turn")) {
    S.hintPending = false;
    if (S.view) renderHint();
  }
  delete document.body.dataset.busy;
  if (msg.code === "unknown_room") {
    S.wantSocket = false;
    notice(t("err.no_room", { code }));
  }
  if (msg.code === "removed") {
    // The host freed our seat before the start: we watch (a welcome with no seat follows).
    forgetSeat(code);
    S.token = null;
  }
  if (msg.code === "bad_token") {
    forgetSeat(code);
    S.token = null;
    S.wantSocket = false;
    S.ws?.close();
    S.ws = null;
    showJoin();
  }
  toast(errorText(msg.code, msg.message));
}

// ------------------------------------------------------------------ room and lobby
function setRoom(room) {
  S.room = room;
  $("room-name").textContent = room.name || "";
  $("room-code").textContent = room.code || code;
  document.title = `${room.name || room.code} · ${t("app.title")}`;
  renderLobby();
  renderLateJoin();
  if (S.view && S.seat !== null) renderReactions(); // the host may have switched them
  // A seat that changed hands (a late friend took over a bot's) shows its new name.
  const sig = room.seats.map((x) => `${x.kind}:${x.name}`).join("|");
  if (S.view && S.seatSig !== undefined && sig !== S.seatSig) renderTable();
  S.seatSig = sig;
}

/** The host's switch for late friends (in the lobby and by the log); others see nothing. */
function renderLateJoin() {
  const host = S.seat !== null && S.seat === S.room?.host;
  const on = S.room?.late_join !== false;
  for (const row of document.querySelectorAll(".late-join")) {
    row.hidden = !host;
    row.querySelector(".late-text").textContent = t(on ? "room.late_on" : "room.late_off");
    const b = row.querySelector(".late-switch");
    b.textContent = t(on ? "room.late_close" : "room.late_open");
    b.onclick = () => send({ type: "late_join", on: !on });
  }
}

/** A late friend took over a bot's seat: everyone is told, in a toast and in the log. */
function onSeatTaken(msg) {
  const text = t(msg.playing ? "room.taken_over" : "room.taken_next", { name: msg.name, was: msg.was || `P${msg.seat}` });
  toast(text, "info", "seat-taken");
  if (S.view) {
    S.log.push({ kind: "seat_taken", text, seat: msg.seat, local: true });
    renderLog();
  }
}

/** The bot's seat a late friend would take (the server's choice: the lowest bot still in the
 * hand), or null. */
function lateSeat(room) {
  if (!room || room.late_join === false) return null;
  const bots = room.seats.filter((s) => s.kind === "bot");
  const live = bots.filter((s) => !S.view?.players?.[s.seat]?.out);
  return (live.length ? live : bots)[0] || null;
}

function renderLobby() {
  const room = S.room;
  if (!room) return;
  // The lobby shows until the first state of a game arrives; after a game the table stays.
  const inLobby = !room.started && S.ws && !S.view;
  // A spectator filling in the join form keeps it while the room changes around them.
  if (S.joining && inLobby) return;
  show("lobby-panel", Boolean(inLobby));
  if (!inLobby) return;
  show("join-panel", false);
  $("room-rules").textContent = roomSummary(room);
  const list = $("seat-list");
  list.replaceChildren();
  for (const s of room.seats) {
    const who =
      s.kind === "open"
        ? t("room.open_seat", { bot: room.bot || s.bot || "" })
        : s.kind === "bot"
          ? `${s.name || s.bot} (${t("room.bot")})`
          : s.name;
    const tags = [];
    let remove = null;
    if (S.seat === room.host && s.kind === "human" && s.seat !== room.host) {
      // Before the start the host may free a person's seat (anyone with the link can join).
      remove = el("button", { type: "button", class: "link", text: t("room.remove_seat") });
      remove.addEventListener("click", () => send({ type: "remove", seat: s.seat }));
    }
    if (s.seat === room.host) tags.push(t("room.host"));
    if (s.seat === S.seat) tags.push(t("room.you"));
    if (s.kind === "human" && (s.away || !s.connected)) tags.push(t(s.away ? "room.bot_plays" : "room.away"));
    list.append(
      el(
        "li",
        { class: `seat ${s.kind}` },
        el("span", { text: who }),
        tags.length ? el("span", { class: "tags", text: tags.join(" · ") }) : null,
        remove,
      ),
    );
  }
  $("invite-link").value = `${location.origin}${room.invite || `/r/${room.code}`}`;
  const host = S.seat !== null && S.seat === room.host;
  show("start-btn", host);
  show("take-seat-btn", S.seat === null && room.seats.some((seat) => seat.kind === "open"));
  $("lobby-wait").textContent = host ? t("room.start_hint") : S.seat === null ? t("room.spectating") : t("room.wait_host");
}

function roomSummary(room) {
  const parts = [t(`preset.${room.preset}`), t(room.mode === "match" ? "lobby.mode_match" : "lobby.mode_hand")];
  parts.push(`${t("lobby.timer")}: ${room.timer ? t("lobby.timer_seconds", { n: room.timer }) : t("lobby.timer_off")}`);
  parts.push(`${t("lobby.hints")}: ${t(room.hints === false ? "lobby.hints_off" : "lobby.hints_on_short")}`);
  // scoring_enabled is the Length shown just before.
  const opts = Object.entries(room.options || {}).filter(([k]) => k !== "scoring_enabled");
  if (opts.length) parts.push(opts.map(([k, v]) => `${optionLabel(k)}: ${optionValue(k, v)}`).join(", "));
  return parts.join(" · ");
}

function showJoin() {
  show("table", false);
  show("lobby-panel", false);
  show("join-panel", true);
  const room = S.room;
  // Once a game has started the open seats are bots': a late friend takes over one of them
  // when the host allows it; otherwise they watch.
  const started = room?.started || (room?.finished_games || []).length > 0;
  const open = room && room.seats.some((seat) => seat.kind === "open");
  const late = !open || started ? lateSeat(room) : null;
  const closed = started && !late && room?.late_join === false;
  $("join-info").textContent = late
    ? t("room.late_info", { name: late.name || `P${late.seat}` })
    : closed
      ? t("room.late_closed")
      : started
        ? t("room.started_info")
        : !open
          ? t("err.room_full")
          : t("room.join_info");
  $("join-form").hidden = !late && Boolean(started || !open);
  if (!$("join-name").value) $("join-name").value = lastName();
}

async function joinRoom(e) {
  e.preventDefault();
  const name = $("join-name").value.trim();
  if (!name) {
    toast(t("err.need_name"));
    return;
  }
  $("join-btn").disabled = true;
  try {
    const res = await api(`/api/rooms/${encodeURIComponent(code)}/join`, { name });
    rememberName(name);
    saveSeat(code, res.seat, res.token);
    S.token = res.token;
    S.seat = res.seat;
    S.joining = false;
    show("join-panel", false);
    // A spectator who takes a seat says hello again on the same connection (web-protocol.md).
    if (S.ws && S.ws.readyState === WebSocket.OPEN) send({ type: "hello", token: res.token });
    else connect();
  } catch (err) {
    toast(errorText(err.code || (err.status === 409 ? "room_full" : null), err.message));
  } finally {
    $("join-btn").disabled = false;
  }
}

// ------------------------------------------------------------------ state
function onState(msg) {
  delete document.body.dataset.busy;
  if (msg.room) setRoom(msg.room);
  if (msg.seat !== undefined) S.seat = msg.seat;
  const newGame = msg.game_id !== undefined && msg.game_id !== S.gameId;
  S.gameId = msg.game_id;
  S.move = msg.move;
  // A hint is for one moment: once the game moves on it no longer applies.
  if (S.hint && (S.hint.game_id !== S.gameId || S.hint.move !== S.move)) S.hint = null;
  S.view = msg.view;
  S.legal = msg.legal || [];
  S.advice = msg.advice || {};
  S.actions = parseLegal(S.legal, S.seat);
  S.timer = msg.timer || null;
  if (S.timer && S.timer.deadline && S.timer.seconds) {
    // The server's clock, estimated from deadline - length <= server time now (equal when the
    // timer has just started): the countdown is right even if this device's clock is not.
    const offset = S.timer.deadline - S.timer.seconds - Date.now() / 1000;
    S.clockOffset = S.clockOffset === undefined ? offset : Math.max(S.clockOffset, offset);
  }
  if (!S.gotState || newGame) {
    // A (re)connection: the view's public history of this hand is the log so far (its newest
    // events; history_from > 0: older ones are asked for with the log's button).
    S.log = Array.isArray(msg.view?.history) ? [...msg.view.history] : [];
    S.logFrom = msg.history_from || 0;
    S.logHand = msg.view?.hand_number ?? null;
    S.gotState = true;
    if (!S.log.length) S.log.push(...(msg.events || []));
    if (newGame) {
      S.handEndShown = null;
      show("hand-end", false);
    }
  } else {
    S.log.push(...(msg.events || []));
  }
  if (msg.view?.hand_number !== S.logHand) {
    // A new hand: the log's first events are an earlier hand's, which cannot be asked for.
    S.logFrom = 0;
    S.logHand = null;
  }
  if (S.log.length > 400) {
    // The newest 400 events are shown; those cut off can be asked for again (same hand).
    const cut = S.log.length - 400;
    S.log.splice(0, cut);
    S.logFrom = S.logHand === null ? 0 : S.logFrom + cut;
  }
  show("join-panel", false);
  show("lobby-panel", false);
  show("table", true);
  document.body.classList.add("playing");
  if (!S.actions.unoWithPlay) S.unoArmed = false;
  const live = S.gotState && !newGame && S.prevView; // an update of a game already on screen
  const before = live ? placesNow() : null;
  const prev = S.prevView;
  renderTable();
  renderLog();
  if (live) {
    moveCards(before, prev, msg);
    soundFor(prev, msg.events || []);
  }
  S.prevView = S.view;
  const ended = (msg.events || []).find((e) => e.kind === "hand_end");
  if (ended) showHandEnd(ended);
  else if (S.view.phase === "over" && S.handEndShown === null) {
    const last = [...S.log].reverse().find((e) => e.kind === "hand_end");
    if (last) showHandEnd(last);
  }
  // The turn moved on (the timer ran out, or it was never ours): a picker would send a stale choice.
  if (S.picker && !myTurn()) closePicker(null);
  maybeOpenColourPicker();
}

function myTurn() {
  return S.view && S.seat !== null && S.view.to_act === S.seat;
}

// ------------------------------------------------------------------ motion and sound (feel.js)
/** Where things are on screen before a new state is drawn: hand cards, seats and the pile. */
function placesNow() {
  const hand = new Map();
  for (const c of $("hand").querySelectorAll(".card")) {
    if (!hand.has(c.dataset.code)) hand.set(c.dataset.code, c.getBoundingClientRect());
  }
  const seats = new Map();
  for (const p of $("opponents").querySelectorAll(".player")) seats.set(Number(p.dataset.seat), p.getBoundingClientRect());
  return { hand, seats, pile: $("draw-pile-btn").getBoundingClientRect(), top: $("top-card").getBoundingClientRect() };
}

/** Cards move from where they came: a play to the pile, drawn cards from the pile to the hand,
 * a growing stack swells, a Roulette's cards turn up one by one. */
function moveCards(before, prev, msg) {
  const v = S.view;
  const events = msg.events || [];
  const top = $("top-card").querySelector(".card");
  const last = msg.last;
  if (top && last && /^(\d+:)?play /.test(last.action || "") && v.top !== prev.top) {
    const code = String(last.action).replace(/^\d+:/, "").split(/\s+/)[1];
    const from = last.seat === S.seat ? before.hand.get(code) : before.seats.get(last.seat);
    if (from) {
      top.classList.remove("landed");
      flyFrom(top, from);
    }
  }
  if (S.seat !== null) {
    // New cards in our hand fly in from the draw pile (a new deal's too; a swap's or a pass's
    // as well: the log says where those came from).
    const had = new Map();
    for (const c of prev.hand || []) had.set(c, (had.get(c) || 0) + 1);
    let i = 0;
    for (const el of $("hand").querySelectorAll(".card")) {
      const code = el.dataset.code;
      if (had.get(code)) had.set(code, had.get(code) - 1);
      else flyFrom(el, before.pile, { delay: Math.min(i++, 12) * 60 });
    }
  }
  if ((v.pending?.total || 0) > (prev.pending?.total || 0)) bump($("pending"));
  const reveal = events.find((e) => e.kind === "reveal" && Array.isArray(e.cards));
  if (reveal) showReveal(reveal.cards);
}

function showReveal(codes) {
  const box = $("reveal");
  const cards = codes.map((c) => cardElement(c, { small: true }));
  box.replaceChildren(...cards);
  box.hidden = false;
  flipIn(cards);
  clearTimeout(S.revealTimer);
  S.revealTimer = setTimeout(() => (box.hidden = true), 2500 + 280 * codes.length);
}

/** A sound for what just happened (only when the player turned sound on). */
function soundFor(prev, events) {
  if (S.seat === null) return;
  const mine = (e) => e.seat === S.seat;
  if (events.some((e) => e.kind === "knockout")) cue("knockout");
  else if (events.some((e) => e.kind === "uno")) cue("uno");
  else if (myTurn() && S.view.phase === "stack_or_absorb" && (S.view.pending?.total || 0) > (prev.pending?.total || 0)) cue("stack");
  else if (myTurn() && prev.to_act !== S.seat && !events.every(mine)) cue("turn");
}

function renderSound() {
  const on = soundOn();
  const b = $("sound-btn");
  b.setAttribute("aria-pressed", on ? "true" : "false");
  b.querySelector("span").innerHTML = SOUND_ICONS[on ? "on" : "off"];
  b.title = t(on ? "sound.on" : "sound.off");
  b.setAttribute("aria-label", b.title);
}

function toggleSound() {
  setSound(!soundOn());
  renderSound();
  if (soundOn()) cue("turn"); // a sample, and the click unlocks audio in the browser
}

// ------------------------------------------------------------------ reactions
function renderReactions() {
  const bar = $("reactions");
  if (!bar.childElementCount) {
    for (const key of Object.keys(REACTIONS)) {
      bar.append(el("button", { type: "button", class: "react", "data-reaction": key, onclick: () => react(key) }));
    }
  }
  for (const b of bar.querySelectorAll("button")) {
    const name = t(`react.${b.dataset.reaction}`);
    b.textContent = reactionFace(b.dataset.reaction);
    b.classList.toggle("words", !EMOJI);
    b.title = name;
    b.setAttribute("aria-label", name);
    b.disabled = Boolean(S.reactWait);
  }
  const on = S.room?.reactions !== false;
  bar.hidden = !on;
  $("reactions-off").hidden = on;
  const host = S.seat !== null && S.seat === S.room?.host;
  const sw = $("reactions-switch");
  sw.hidden = !host;
  sw.textContent = t(on ? "react.turn_off" : "react.turn_on");
}

function react(key) {
  if (S.reactWait || !send({ type: "react", reaction: key })) return;
  // The server takes one reaction per seat every REACTION_EVERY s: wait as long here.
  S.reactWait = setTimeout(() => {
    S.reactWait = null;
    if (S.view) renderReactions();
  }, REACTION_EVERY * 1000);
  renderReactions();
}

/** A reaction next to the seat that sent it, for a few seconds (kept across re-renders). */
function showReaction(msg) {
  if (!REACTIONS[msg.reaction] || !S.view) return;
  S.bubbles ||= new Map();
  const old = S.bubbles.get(msg.seat);
  if (old) clearTimeout(old.timer);
  const timer = setTimeout(() => {
    S.bubbles.delete(msg.seat);
    placeBubbles();
  }, 4000);
  S.bubbles.set(msg.seat, { reaction: msg.reaction, timer });
  placeBubbles();
}

function placeBubbles() {
  for (const old of document.querySelectorAll("#table .reaction-bubble")) old.remove();
  for (const [seat, { reaction }] of S.bubbles || []) {
    const box = seat === S.seat ? $("me").querySelector(".me-head") : $("opponents").querySelector(`.player[data-seat="${seat}"] .pname`);
    if (!box) continue;
    const name = names()[seat] ?? `P${seat}`;
    box.append(
      el("span", {
        class: "reaction-bubble",
        role: "status",
        "data-seat": seat,
        "data-reaction": reaction,
        "aria-label": t("react.said", { name, reaction: t(`react.${reaction}`) }),
        text: reactionFace(reaction),
      }),
    );
  }
}

function renderTable() {
  const v = S.view;
  const A = S.actions;
  const players = v.players;
  const order = [];
  const n = players.length;
  const start = S.seat === null ? 0 : S.seat + 1;
  for (let i = 0; i < n; i++) {
    const s = (start + i) % n;
    if (s !== S.seat) order.push(s);
  }
  // Opponents, in turn order from our left.
  const opp = $("opponents");
  opp.replaceChildren();
  for (const s of order) opp.append(playerPanel(players[s], A));
  placeBubbles();
  // Centre.
  $("draw-back").replaceChildren(cardBack({ preset: v.rules?.preset }));
  $("pile-size").textContent = t("table.pile", { n: v.draw_pile_size });
  $("draw-pile-btn").disabled = !A.draw;
  const top = v.top ? cardElement(v.top) : el("div", { class: "card empty" });
  // A new card on the pile lands with a short animation (none with prefers-reduced-motion).
  const pileSize = (v.discard || []).length;
  if (S.lastPile !== undefined && (v.top !== S.lastTop || pileSize !== S.lastPile)) top.classList.add("landed");
  [S.lastTop, S.lastPile] = [v.top, pileSize];
  if (v.top) {
    // The card on the pile tells what it does when tapped (players and spectators alike).
    top.setAttribute("role", "button");
    top.tabIndex = 0;
    top.title = t("rules.card", { card: cardName(v.top) });
    top.addEventListener("click", () => showCardRules(v.top));
    top.addEventListener("keydown", (e) => (e.key === "Enter" || e.key === " ") && (e.preventDefault(), showCardRules(v.top)));
  }
  $("top-card").replaceChildren(top);
  const ac = $("active-colour");
  ac.replaceChildren();
  if (v.colour) {
    ac.className = `active-colour c-${v.colour}`;
    ac.append(el("span", { class: "label", text: t("table.colour") }), colourChip(v.colour));
  } else {
    ac.className = "active-colour none";
    ac.append(el("span", { class: "label", text: t("table.colour_unnamed") }));
  }
  const cw = v.direction === 1;
  $("direction").innerHTML = `<span class="arrow ${cw ? "cw" : "ccw"}" aria-hidden="true">${cw ? "↻" : "↺"}</span> ${escapeHtml(t(cw ? "dir.cw" : "dir.ccw"))}`;
  const pend = $("pending");
  if (v.pending && v.pending.total) {
    pend.hidden = false;
    const links = v.pending.chain || [];
    const chain = links.length > 1 ? links.map((x) => `+${x}`).join(" ") : "";
    // Classic has no stacking by value (CL-7): what is pending is a number of cards to draw.
    pend.textContent = stacking()
      ? t("table.pending", { total: v.pending.total, last: v.pending.last }) + (chain ? ` (${chain})` : "")
      : t("table.pending_classic", { total: v.pending.total });
  } else pend.hidden = true;
  renderTimer();
  // Prompt.
  $("prompt").textContent = promptText();
  $("prompt").classList.toggle("mine", myTurn());
  const title = `${S.room?.name || code} · ${t("app.title")}`;
  document.title = myTurn() ? `▶ ${title}` : title;
  // Our seat.
  const meBox = $("me");
  meBox.hidden = S.seat === null;
  // A spectator is told so where a player's hand would be, and offered a bot's seat when the
  // host lets late friends in.
  $("watching").hidden = S.seat !== null;
  $("late-take-btn").hidden = !(S.seat === null && v.phase !== "over" && lateSeat(S.room));
  if (S.seat === null) {
    $("advice").hidden = true;
    $("hint").hidden = true;
  }
  if (S.seat !== null) {
    const me = players[S.seat];
    const bits = [`${seatName(S.seat, me.name)} (${t("room.you")})`, cardsText(me.hand_size)];
    if (me.mercy_distance !== null && me.mercy_distance !== undefined) bits.push(t("table.mercy", { n: me.mercy_distance }));
    if (me.out) bits.push(t("table.out"));
    if (me.uno) bits.push(t("table.uno_called"));
    if (matchScores()) bits.push(t("table.score_of", { n: v.scores[S.seat], target: v.score_target }));
    $("me-info").textContent = bits.join(" · ");
    meBox.classList.toggle("turn", myTurn());
    renderHand();
    renderControls();
    renderReactions();
  }
  measureStrip();
  if (S.seat !== null) keepDecisionInView();
}

/** Whether the seats show their match scores: only in a match (a single hand is not scored:
 * its points would read as unexplained numbers), once someone has scored. */
function matchScores() {
  const v = S.view;
  return S.room?.mode === "match" && Boolean(v?.score_target) && (v.scores || []).some((x) => x);
}

/** The moment the seat decides in (a new one after every action of anyone). */
function decisionKey() {
  return `${S.gameId}:${S.move}:${S.view?.phase}`;
}

/**
 * When this seat comes to decide, its warnings (and the prompt and hand) must be on screen: on a
 * phone or a crowded table they may lie below the fold. Scrolls only when they are not visible,
 * and once per decision, so a player reading the log is not pulled back on every render.
 */
function keepDecisionInView(force = false) {
  if (!myTurn() && !S.actions?.uno) return;
  const key = decisionKey();
  if (!force && S.inViewFor === key) return;
  S.inViewFor = key;
  const boxes = ["prompt", "advice", "hint"].map($).filter((b) => !b.hidden);
  const top = Math.min(...boxes.map((b) => b.getBoundingClientRect().top));
  const bottom = Math.max(...boxes.map((b) => b.getBoundingClientRect().bottom));
  if (top >= 0 && bottom <= visibleBottom()) return;
  // The prompt at the top of the screen, the warnings below it, the hand in its strip.
  window.scrollBy({ top: top - 8, behavior: "instant" });
}

/** Where the page's visible part ends: the top of the hand's strip when it is pinned to the
 * bottom of the window (a phone; a desktop whose table is taller than the window). */
function visibleBottom() {
  const me = $("me");
  if (me.hidden || getComputedStyle(me).position === "static") return window.innerHeight;
  return Math.min(window.innerHeight, me.getBoundingClientRect().top);
}

/** The page keeps room below its last line for the strip pinned over it (CSS --me-h). */
function measureStrip() {
  const me = $("me");
  const h = me.hidden || getComputedStyle(me).position !== "fixed" ? 0 : Math.ceil(me.getBoundingClientRect().height);
  document.documentElement.style.setProperty("--me-h", `${h}px`);
}

function playerPanel(p, A) {
  const v = S.view;
  const turn = v.to_act === p.seat;
  const box = el("div", { class: `player${turn ? " turn" : ""}${p.out ? " out" : ""}`, "data-seat": p.seat });
  const head = el("div", { class: "pname" }, el("span", { class: "name", text: seatName(p.seat, p.name) }));
  if (turn) head.append(el("span", { class: "badge turn-badge", text: t("table.to_act") }));
  if (v.dealer === p.seat) head.append(el("span", { class: "badge", title: t("table.dealer"), text: "D" }));
  box.append(head);
  const fan = el("div", { class: "fan", "aria-hidden": "true" });
  for (let i = 0; i < Math.min(p.hand_size, 12); i++) fan.append(cardBack({ small: true, preset: v.rules?.preset }));
  box.append(fan);
  const info = [cardsText(p.hand_size)];
  if (p.mercy_distance !== null && p.mercy_distance !== undefined && !p.out) info.push(t("table.mercy", { n: p.mercy_distance }));
  if (matchScores()) info.push(t("table.score_of", { n: v.scores[p.seat], target: v.score_target }));
  box.append(el("div", { class: `pinfo${p.mercy_distance !== null && p.mercy_distance <= 5 ? " danger" : ""}`, text: info.join(" · ") }));
  if (p.out) box.append(el("div", { class: "badge out", text: t("table.out") }));
  if (p.uno) box.append(el("div", { class: "badge uno", text: t("table.uno_called") }));
  else if (p.hand_size === 1 && !p.out) box.append(el("div", { class: "badge warn", text: t("table.one_card") }));
  const known = v.known?.[String(p.seat)];
  if (known && known.length) {
    const row = el("div", { class: "known" }, el("span", { class: "small muted", text: t("table.known") }));
    for (const c of known.slice(0, 10)) row.append(cardElement(c, { small: true }));
    box.append(row);
  }
  if (A.catches.has(p.seat)) {
    box.append(
      el("button", {
        type: "button",
        class: "catch",
        "data-catch": p.seat,
        text: t("table.catch", { name: seatName(p.seat, p.name) }),
        onclick: () => act(A.catches.get(p.seat)),
      }),
    );
  }
  if (S.timer && S.timer.seat === p.seat) box.append(el("div", { class: "ptimer", "data-timer": "1" }));
  return box;
}

function promptText() {
  const v = S.view;
  if (v.phase === "over") return v.winner !== null && v.winner !== undefined ? t("prompt.over", { name: names()[v.winner] }) : t("prompt.over_plain");
  const who = v.to_act === null || v.to_act === undefined ? "" : names()[v.to_act];
  if (!myTurn()) {
    if (v.phase === "roulette_colour") return t("prompt.roulette_other", { name: who });
    if (v.phase === "stack_or_absorb") {
      // Classic has no stacking: a +2 is taken, a Wild +4 taken or challenged (CL-8).
      const total = v.pending?.total ?? "";
      if (stacking()) return t("prompt.stack_other", { name: who, total });
      return t(v.wd4_challengeable ? "prompt.challenge_other" : "prompt.take_other", { name: who, total });
    }
    return t("prompt.waiting", { name: who });
  }
  switch (v.phase) {
    case "stack_or_absorb":
      if (S.actions.challenge) return t("prompt.challenge"); // CL-8: a Wild Draw Four on us
      return t(stacking() ? "prompt.stack" : "prompt.take", { total: v.pending?.total ?? "" });
    case "play_drawn":
      return S.actions.pass ? t("prompt.drawn_may") : t("prompt.drawn_must");
    case "choose_colour":
      return t("prompt.choose_colour");
    case "roulette_colour":
      return t("prompt.roulette");
    case "discard_all_top":
      return t("prompt.discard_all_top");
    case "discard_all_subset":
      return t("prompt.discard_all_subset");
    default:
      return S.actions.challenge ? t("prompt.challenge") : t("prompt.play");
  }
}

function handCards() {
  return sortCards(S.view.hand || []);
}

function renderHand() {
  const hand = $("hand");
  const cards = handCards();
  const A = S.actions;
  if (S.selected >= cards.length) S.selected = Math.max(0, cards.length - 1);
  // A new decision starts the keyboard on a playable card (the first), not on a dim one.
  const key = decisionKey();
  if (S.selectedFor !== key) {
    S.selectedFor = key;
    const first = cards.findIndex((c) => A.plays.has(c));
    if (first >= 0 && !A.plays.has(cards[S.selected])) S.selected = first;
  }
  // Redrawing keeps the strip where the player scrolled it (emptying it would reset it).
  const scrolled = hand.scrollLeft;
  const fresh = S.stripFor !== key;
  S.stripFor = key;
  hand.replaceChildren();
  cards.forEach((c, i) => {
    const legal = A.plays.has(c);
    const b = cardElement(c, { button: true });
    b.classList.add(legal ? "legal" : "dim");
    if (S.view.drawn === c && S.view.phase === "play_drawn") b.classList.add("drawn");
    if (i === S.selected) b.classList.add("selected");
    b.setAttribute("role", "option");
    b.setAttribute("aria-selected", i === S.selected ? "true" : "false");
    b.setAttribute("aria-disabled", legal ? "false" : "true");
    b.dataset.index = String(i);
    b.title = `${i + 1}: ${cardName(c)}${legal ? "" : ` (${t("table.not_playable")})`}`;
    const warn = legal ? adviceFor(A.plays.get(c).map((a) => a.text)) : [];
    if (warn.length) {
      b.classList.add("warn");
      b.append(el("span", { class: "warn-badge", text: "⚠", "aria-hidden": "true" }));
      b.title += `\n⚠ ${warn.map(adviceText).join("\n⚠ ")}`;
      b.setAttribute("aria-label", `${cardName(c)}. ⚠ ${warn.map(adviceText).join(". ")}`);
    }
    b.addEventListener("click", (e) => {
      if (S.infoShown === b) {
        // The click that ends a long press only closes the press: the card is not played.
        S.infoShown = null;
        e.preventDefault();
        return;
      }
      S.selected = i;
      playCard(c);
    });
    cardInfoOn(b, c);
    hand.append(b);
  });
  hand.scrollLeft = scrolled;
  // A new decision shows the chosen (first playable) card inside the strip.
  if (fresh) showInStrip(hand.children[S.selected]);
}

/** A card's own info: a long press (touch), a right click or the I key opens the rules that
 * say what it does. */
function cardInfoOn(node, code) {
  node.addEventListener("contextmenu", (e) => {
    e.preventDefault();
    showCardRules(code);
  });
  node.addEventListener("pointerdown", (e) => {
    if (e.pointerType !== "touch") return;
    clearTimeout(S.pressTimer);
    S.pressTimer = setTimeout(() => {
      S.infoShown = node;
      showCardRules(code);
    }, 550);
  });
  for (const end of ["pointerup", "pointercancel", "pointerleave"]) node.addEventListener(end, () => clearTimeout(S.pressTimer));
}

/** The rules of card `code` under this table's rules, in the rule dialog. */
async function showCardRules(code) {
  const preset = S.view?.rules?.preset || S.room?.preset || "no-mercy";
  let ids = [];
  try {
    ids = cardRuleIds(await loadRules(), code, preset);
  } catch {
    ids = [];
  }
  openRules(ids, cardName(code));
}

/** Scroll the hand's strip, and only the strip, so that `card` lies wholly inside it. */
function showInStrip(card) {
  const hand = $("hand");
  if (!card || hand.scrollWidth <= hand.clientWidth) return;
  const box = hand.getBoundingClientRect();
  const r = card.getBoundingClientRect();
  if (r.left < box.left) hand.scrollLeft -= box.left - r.left + 8;
  else if (r.right > box.right) hand.scrollLeft += r.right - box.right + 8;
}

function renderControls() {
  const A = S.actions;
  const draw = $("draw-btn");
  draw.hidden = !A.draw;
  draw.querySelector("span").textContent =
    S.view.phase === "stack_or_absorb" && S.view.pending ? t("table.take", { n: S.view.pending.total }) : t("table.draw");
  warnBadge(draw, A.draw ? adviceFor([A.draw]) : []);
  warnBadge($("challenge-btn"), A.challenge ? adviceFor([A.challenge]) : []);
  const pass = $("pass-btn");
  pass.hidden = !A.pass;
  $("pass-label").textContent = t(
    S.view.phase === "discard_all_top" ? "table.keep_da" : S.view.phase === "discard_all_subset" ? "table.stop_da" : "table.keep",
  );
  $("challenge-btn").hidden = !A.challenge;
  $("colour-btn").hidden = !(myTurn() && A.colours.size);
  const uno = $("uno-btn");
  // A knocked-out player has no UNO to call, now or later in the hand.
  uno.hidden = Boolean(S.view.players?.[S.seat]?.out);
  uno.disabled = !(A.uno || A.unoWithPlay);
  uno.setAttribute("aria-pressed", S.unoArmed ? "true" : "false");
  uno.classList.toggle("armed", S.unoArmed);
  uno.classList.toggle("urgent", Boolean(A.uno) || (A.unoWithPlay && !S.unoArmed));
  // Armed: the button says so itself (a check mark and its own label).
  uno.querySelector("span").textContent = S.unoArmed ? t("table.uno_armed_btn") : t("table.uno");
  uno.title = S.unoArmed
    ? t("table.uno_armed")
    : A.uno
      ? t("table.uno_now")
      : A.unoWithPlay
        ? t("table.uno_arm")
        : t("table.uno_off");
  renderAdvice();
  renderHint();
}

// ------------------------------------------------------------------ the coach
function canAskHint() {
  const A = S.actions;
  if (!S.room || S.room.hints === false || S.seat === null || !S.view || S.view.phase === "over") return false;
  if (S.view.players?.[S.seat]?.out) return false;
  return myTurn() || Boolean(A?.uno) || Boolean(A?.catches?.size);
}

function askHint() {
  if (!canAskHint()) {
    toast(S.room?.hints === false ? t("err.hints_off") : t("err.not_your_turn"), "info", "hint");
    return;
  }
  if (S.hintPending) return;
  if (S.hint) return; // already shown for this moment
  if (send({ type: "hint" })) {
    S.hintPending = true;
    renderHint();
  }
}

function onHint(msg) {
  S.hintPending = false;
  if (msg.game_id !== S.gameId || msg.move !== S.move) {
    renderHint(); // a hint for a moment that has passed
    return;
  }
  S.hint = msg;
  renderHint();
  // The answer below the fold (or under the hand's strip) is brought up, the page otherwise
  // left where it is.
  const box = $("hint").getBoundingClientRect();
  const bottom = visibleBottom();
  if (box.top < 0) window.scrollBy({ top: box.top - 8, behavior: "instant" });
  else if (box.bottom > bottom) window.scrollBy({ top: Math.min(box.top - 8, box.bottom - bottom + 8), behavior: "instant" });
}

/** The coach's hint under the prompt: the move, its estimated chance, why, the other moves. */
function renderHint() {
  const btn = $("hint-btn");
  btn.hidden = !canAskHint();
  btn.disabled = S.hintPending;
  const box = $("hint");
  box.replaceChildren();
  if (S.hintPending) {
    box.append(el("span", { class: "muted", text: t("coach.thinking") }));
    box.hidden = false;
    return;
  }
  const h = S.hint?.hint;
  if (!h) {
    box.hidden = true;
    return;
  }
  const head = el("div", {}, el("strong", { text: `${t("coach.title")}: ` }), el("span", { class: "hint-move", "data-action": h.action, text: actionText(h.action) }));
  if (h.chance !== null && h.chance !== undefined) head.append(" · ", el("span", { class: "hint-chance", text: t("coach.chance", { n: Math.round(100 * h.chance) }) }));
  box.append(head, el("div", { class: "hint-reason" }, ...ruleNodes(reasonText(h.reason))));
  const others = (h.estimates || []).filter((e) => e.action !== h.action).slice(0, 3);
  if (others.length) {
    const list = others.map((e) => `${actionText(e.action)} ${Math.round(100 * e.chance)}%`).join(" · ");
    box.append(el("div", { class: "hint-others", text: `${t("coach.others")}: ${list}` }));
  }
  box.hidden = false;
}

/** A ⚠ badge on a control (Take, Challenge) whose action has `warn`, and the text in its title. */
function warnBadge(button, warn) {
  button.querySelector(".warn-badge")?.remove();
  button.classList.toggle("warn", warn.length > 0);
  if (!warn.length) {
    button.removeAttribute("title");
    return;
  }
  button.append(el("span", { class: "warn-badge", text: "⚠", "aria-hidden": "true" }));
  button.title = `⚠ ${warn.map(adviceText).join("\n⚠ ")}`;
}

/** The consequences of this seat's moves that are not obvious, shown under the prompt. */
function renderAdvice() {
  const box = $("advice");
  const A = S.actions;
  box.replaceChildren();
  const items = [];
  if (A.draw) for (const a of adviceFor([A.draw])) items.push([$("draw-btn").querySelector("span").textContent, a]);
  if (A.challenge) for (const a of adviceFor([A.challenge])) items.push([t("table.challenge"), a]);
  for (const [card, plays] of A.plays) for (const a of adviceFor(plays.map((p) => p.text))) items.push([cardName(card), a]);
  for (const [what, a] of items) {
    box.append(el("li", { class: `advice-${a.kind}` }, el("strong", { text: `⚠ ${what}: ` }), ...ruleNodes(adviceText(a))));
  }
  box.hidden = !items.length;
}

function onUno() {
  const A = S.actions;
  if (!A) return;
  if (A.uno) act(A.uno);
  else if (A.unoWithPlay) {
    S.unoArmed = !S.unoArmed;
    renderControls();
    toast(t(S.unoArmed ? "table.uno_armed" : "table.uno_disarmed"), "info", "uno");
  }
}

// ------------------------------------------------------------------ playing a card
async function playCard(c) {
  const A = S.actions;
  let options = A?.plays.get(c);
  if (!options || !options.length) {
    toast(myTurn() ? t("err.not_playable", { card: cardName(c) }) : t("err.not_your_turn"), "info");
    return;
  }
  const colours = [...new Set(options.map((a) => a.colour).filter(Boolean))];
  if (colours.length > 1) {
    const pick = await pickColour(t("picker.wild_colour", { card: cardName(c) }), colours);
    if (!pick) return;
    options = options.filter((a) => a.colour === pick);
  }
  const targets = [...new Set(options.map((a) => a.target).filter((x) => x !== null))];
  if (targets.length > 1) {
    const pick = await pickTarget(targets);
    if (pick === null) return;
    options = options.filter((a) => a.target === pick);
  }
  const withUno = options.filter((a) => a.uno);
  const without = options.filter((a) => !a.uno);
  const chosen = S.unoArmed && withUno.length ? withUno[0] : without[0] || options[0];
  act(chosen.text);
}

function pickColour(title, colours) {
  return openPicker(
    title,
    colours.map((c, i) => ({
      value: c,
      key: [String(i + 1), c.toLowerCase()],
      node: el("button", { type: "button", class: `pick-colour c-${c}`, "data-colour": c, html: `${shapeSvg(c, "shape big")}<span>${escapeHtml(colourWord(c))}</span><kbd>${i + 1}</kbd>` }),
    })),
  );
}

function pickTarget(targets) {
  return openPicker(
    t("picker.seven"),
    targets.map((s, i) => {
      const p = S.view.players[s];
      return {
        value: s,
        key: [String(i + 1)],
        node: el(
          "button",
          { type: "button", class: "pick-target", "data-target": s, text: `${names()[s]} · ${cardsText(p.hand_size)}` },
          ...adviceFor(S.legal.filter((x) => new RegExp(`^play \\S+ ${s}( |$)`).test(x))).map((a) => el("span", { class: "warn-text", text: ` ⚠ ${adviceText(a)}` })),
          el("kbd", { text: String(i + 1) }),
        ),
      };
    }),
  );
}

function openPicker(title, items) {
  closePicker(null);
  $("picker-title").textContent = title;
  const body = $("picker-body");
  body.replaceChildren();
  return new Promise((resolve) => {
    S.picker = { items, resolve };
    for (const it of items) {
      it.node.addEventListener("click", () => closePicker(it.value));
      body.append(it.node);
    }
    show("picker", true);
    items[0]?.node.focus();
  });
}

function closePicker(value) {
  const p = S.picker;
  S.picker = null;
  show("picker", false);
  if (p) p.resolve(value);
}

async function maybeOpenColourPicker(force = false) {
  const A = S.actions;
  if (!myTurn() || !A.colours.size || S.picker) return;
  // Opened once per decision; the Name the colour button (K) opens it again after Cancel.
  const decision = `${S.gameId}:${S.view.phase}:${S.view.hand_number}:${S.move}`;
  if (!force && S.colourAsked === decision) return;
  S.colourAsked = decision;
  const title = S.view.phase === "roulette_colour" ? t("picker.roulette") : t("picker.colour");
  const letters = COLOURS.filter((c) => A.colours.has(c));
  const pick = await pickColour(title, letters);
  if (pick && S.actions.colours.has(pick)) act(S.actions.colours.get(pick));
}

// ------------------------------------------------------------------ timer
function renderTimer() {
  const box = $("timer");
  const tm = S.timer;
  if (!tm || !tm.deadline) {
    box.hidden = true;
    return;
  }
  const now = Date.now() / 1000 + (S.clockOffset ?? 0);
  const left = Math.max(0, Math.min(tm.seconds || Infinity, Math.ceil(tm.deadline - now)));
  box.hidden = false;
  const who = names()[tm.seat] ?? "";
  box.textContent = t("table.timer", { name: who, n: left });
  box.classList.toggle("low", left <= 5);
  for (const p of document.querySelectorAll("[data-timer]")) p.textContent = `⏱ ${left}s`;
}
setInterval(() => S.view && renderTimer(), 250);

// ------------------------------------------------------------------ log
function renderLog(keepScroll = false) {
  const list = $("log");
  const nm = names();
  const dealt = S.view ? S.view.players.map((p) => p.name) : null;
  const below = list.scrollHeight - list.scrollTop;
  list.replaceChildren();
  if (S.logFrom > 0) {
    // The hello's state carries the hand's newest events: older ones come a page at a time.
    const more = el("button", { type: "button", class: "secondary", id: "log-older", text: t("table.older"), onclick: askOlder });
    list.append(el("li", { class: "ev ev-older" }, more));
  }
  for (const ev of S.log) {
    // A line of this page's own (a seat taken over) is already in words.
    const { text, rules } = ev.local ? { text: ev.text, rules: "" } : translateEvent(ev, nm, dealt);
    const li = el("li", { class: `ev ev-${ev.kind}` }, el("span", { class: "etext", text }));
    if (rules) li.append(" ", el("span", { class: "rule" }, ...ruleNodes(rules)));
    list.append(li);
  }
  list.scrollTop = keepScroll ? list.scrollHeight - below : list.scrollHeight;
}

function askOlder() {
  if (S.ws && S.ws.readyState === WebSocket.OPEN && S.logFrom > 0) {
    S.ws.send(JSON.stringify({ type: "history", before: S.logFrom }));
  }
}

function onHistory(msg) {
  // Older events of this hand (web-protocol.md): [from, S.logFrom), put before the log.
  if (msg.game_id !== S.gameId || msg.hand !== S.logHand || !(msg.from < S.logFrom)) return;
  const events = Array.isArray(msg.events) ? msg.events.slice(0, S.logFrom - msg.from) : [];
  S.log.unshift(...events);
  S.logFrom = msg.from;
  renderLog(true);
}

// ------------------------------------------------------------------ end of a hand
function showHandEnd(ev) {
  const v = S.view;
  S.handEndShown = ev;
  const nm = names();
  const winner = ev.winner ?? ev.seat;
  $("hand-end-title").textContent = t(ev.how === "last standing" ? "end.title_last" : "end.title", { name: nm[winner] });
  const body = $("hand-end-body");
  body.replaceChildren();
  const table = el("table", { class: "scores" });
  // A single hand is not scored: who holds how many cards, no points and no totals.
  const scored = S.room?.mode === "match";
  const head = scored ? ["end.player", "end.card_points", "end.hand_score", "end.total"] : ["end.player", "end.cards_left"];
  table.append(el("tr", {}, ...head.map((k) => el("th", { text: t(k) }))));
  const cards = ev.cards || {};
  const scores = ev.scores || v.scores || [];
  const lowest = ev.points === undefined; // classic lowest_wins: everyone adds their own points
  nm.forEach((name, s) => {
    const p = v.players?.[s];
    let cells;
    if (!scored) cells = [name, p?.out ? t("table.out") : String(p?.hand_size ?? 0)];
    else {
      // The last player standing may hold cards: they score none, so no "0" for them.
      const mine = s === winner ? (ev.how === "last standing" ? "—" : "0") : t("table.out");
      const left = Object.hasOwn(cards, String(s)) ? String(cards[String(s)]) : mine;
      let gain = "—";
      if (s === winner && !lowest) gain = `+${ev.points}`;
      else if (lowest && Object.hasOwn(cards, String(s))) gain = `+${cards[String(s)]}`;
      cells = [name, left, gain, String(scores[s] ?? 0)];
    }
    table.append(el("tr", { class: s === winner ? "winner" : "" }, ...cells.map((x) => el("td", { text: x }))));
  });
  body.append(table);
  if (scored) {
    // The engine's own breakdown (cards per opponent, knock-out bonus), translated.
    const { text, rules } = translateEvent(ev, nm, v.players?.map((p) => p.name));
    body.append(el("p", { class: "breakdown" }, text, rules ? " " : "", rules ? el("span", { class: "rule" }, ...ruleNodes(rules)) : null));
    if (ev.points === undefined) body.append(el("p", { text: t("end.lowest") }));
  }
  const matchOver = v.phase === "over";
  if (S.room?.mode === "match") {
    body.append(el("p", { class: "muted", text: t("end.target", { n: v.score_target }) }));
  }
  if (matchOver && v.winner !== null && v.winner !== undefined && S.room?.mode === "match") {
    body.append(el("p", { class: "strong", text: t("end.match_winner", { name: nm[v.winner] }) }));
  }
  const actions = $("hand-end-actions");
  actions.replaceChildren();
  actions.append(el("button", { type: "button", class: "primary", id: "hand-end-close", text: matchOver ? t("ui.close") : t("end.continue"), onclick: () => show("hand-end", false) }));
  const gid = S.gameId || S.room?.game_id || S.room?.finished_games?.at(-1);
  if (matchOver && S.seat !== null && S.seat === S.room?.host)
    actions.append(el("button", { type: "button", class: "secondary", id: "new-game", text: t("end.new_game"), onclick: () => send({ type: "start" }) }));
  if (matchOver && gid) actions.append(el("a", { class: "button secondary", href: `/replay/${encodeURIComponent(gid)}`, text: t("end.replay") }));
  actions.append(el("a", { class: "button secondary", href: "/", text: t("end.lobby") }));
  $("hand-end").dataset.over = matchOver ? "1" : "0";
  show("hand-end", true);
}

// ------------------------------------------------------------------ keyboard
function onKey(e) {
  if (e.target.closest("input, select, textarea") || e.ctrlKey || e.metaKey || e.altKey) return;
  const k = e.key;
  if (!$("rule").hidden) {
    if (k === "Escape") closeRules();
    return;
  }
  if (!$("help").hidden) {
    if (k === "Escape" || k === "?") show("help", false);
    return;
  }
  if (S.picker) {
    if (k === "Escape") closePicker(null);
    const hit = S.picker?.items.find((it) => it.key.includes(k.toLowerCase()));
    if (hit) closePicker(hit.value);
    e.preventDefault();
    return;
  }
  if (!$("hand-end").hidden) {
    if (k === "Escape" || k === "Enter") show("hand-end", false);
    return;
  }
  if (k === "?") {
    show("help", true);
    return;
  }
  if (k === "m" || k === "M") {
    toggleSound();
    return;
  }
  if ((k === "i" || k === "I") && S.view) {
    // The chosen card's rules (a spectator: the card on the pile's).
    const card = S.seat !== null ? handCards()[S.selected] : S.view.top;
    if (card) showCardRules(card);
    return;
  }
  if (!S.view || S.seat === null) return;
  // Enter or Space on a focused button outside the hand (a reaction, Take, Hint) presses it.
  if ((k === "Enter" || k === " ") && e.target.closest("button") && !e.target.closest("#hand")) return;
  const cards = handCards();
  const A = S.actions;
  let handled = true;
  if (k === "ArrowRight" || k === "ArrowLeft") {
    const d = k === "ArrowRight" ? 1 : -1;
    S.selected = (S.selected + d + cards.length) % Math.max(1, cards.length);
    renderHand();
    focusSelected();
  } else if (k === "Home" || k === "End") {
    S.selected = k === "Home" ? 0 : cards.length - 1;
    renderHand();
    focusSelected();
  } else if (/^[0-9]$/.test(k)) {
    const i = k === "0" ? 9 : Number(k) - 1;
    if (i < cards.length) {
      S.selected = i;
      renderHand();
      focusSelected();
    }
  } else if (k === "Enter" || k === " ") {
    if (cards[S.selected]) playCard(cards[S.selected]);
  } else if (k === "d" || k === "D") act(A.draw);
  else if (k === "p" || k === "P") act(A.pass);
  else if (k === "c" || k === "C") act(A.challenge);
  else if (k === "u" || k === "U") onUno();
  else if (k === "k" || k === "K") maybeOpenColourPicker(true);
  else if (k === "h" || k === "H") askHint();
  else if (k === "x" || k === "X") {
    const first = [...A.catches.values()][0];
    if (first) act(first);
  } else handled = false;
  if (handled) e.preventDefault();
}

function focusSelected() {
  const card = $("hand").querySelector(".selected");
  showInStrip(card);
  card?.focus({ preventScroll: true });
}

// ------------------------------------------------------------------ start
async function main() {
  // A room made by the lobby's plain form post (sent before or without the lobby's script):
  // the seat token comes in the URL fragment, which never reaches a server; keep it, drop it.
  const given = new URLSearchParams(location.hash.slice(1));
  if (given.get("token")) {
    saveSeat(code, Number(given.get("seat") || 0), given.get("token"));
    history.replaceState(null, "", location.pathname + location.search);
  }
  await initI18n();
  mountLanguagePicker($("lang"));
  onLangChange(() => {
    applyDom();
    renderSound();
    if (S.room) setRoom(S.room);
    if (S.view) {
      renderTable();
      renderLog();
    }
    if (S.handEndShown && !$("hand-end").hidden) showHandEnd(S.handEndShown);
  });
  $("join-form").addEventListener("submit", joinRoom);
  $("watch-btn").addEventListener("click", () => {
    S.token = null;
    S.seat = null;
    show("join-panel", false);
    connect();
  });
  $("copy-btn").addEventListener("click", async () => {
    const link = $("invite-link").value;
    try {
      await navigator.clipboard.writeText(link);
    } catch {
      $("invite-link").select();
      document.execCommand?.("copy");
    }
    toast(t("room.copied"), "info");
  });
  $("start-btn").addEventListener("click", () => send({ type: "start" }));
  $("late-take-btn").addEventListener("click", () => {
    S.joining = true;
    showJoin();
    $("watch-btn").hidden = true; // already watching
  });
  $("take-seat-btn").addEventListener("click", () => {
    S.joining = true;
    showJoin();
    $("watch-btn").hidden = true; // already watching
  });
  $("draw-btn").addEventListener("click", () => act(S.actions?.draw));
  $("draw-pile-btn").addEventListener("click", () => act(S.actions?.draw));
  $("pass-btn").addEventListener("click", () => act(S.actions?.pass));
  $("challenge-btn").addEventListener("click", () => act(S.actions?.challenge));
  $("uno-btn").addEventListener("click", onUno);
  $("hint-btn").addEventListener("click", askHint);
  $("colour-btn").addEventListener("click", () => maybeOpenColourPicker(true));
  $("picker-cancel").addEventListener("click", () => closePicker(null));
  $("help-btn").addEventListener("click", () => show("help", true));
  $("sound-btn").addEventListener("click", toggleSound);
  renderSound();
  $("reactions-switch").addEventListener("click", () => send({ type: "reactions", on: S.room?.reactions === false }));
  $("help-close").addEventListener("click", () => show("help", false));
  document.addEventListener("keydown", onKey);
  watchRuleClicks();
  // The strip's height changes with its buttons and the window (a phone turned sideways).
  new ResizeObserver(measureStrip).observe($("me"));
  window.addEventListener("resize", measureStrip);
  $("room-code").textContent = code;
  try {
    setRoom(await api(`/api/rooms/${encodeURIComponent(code)}`));
  } catch (err) {
    notice(err.status === 404 ? t("err.no_room", { code }) : errorText(err.code, err.message));
    return;
  }
  const saved = savedSeat(code);
  if (saved && saved.token) {
    S.token = saved.token;
    S.seat = saved.seat;
    connect();
  } else showJoin();
}

main();
