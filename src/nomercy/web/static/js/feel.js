// How the table feels: cards that move and a few sounds. Motion follows the system's
// prefers-reduced-motion (no movement at all when it says reduce); sound is off until the
// player turns it on (remembered), and is made here with Web Audio: no sound files to license.

const reduced = window.matchMedia("(prefers-reduced-motion: reduce)");

/** Whether cards may move (the player's system does not ask for reduced motion). */
export function motionAllowed() {
  return !reduced.matches;
}

function counted() {
  // How many movements the page has started: tests read it (and nothing else does).
  document.body.dataset.motions = String(Number(document.body.dataset.motions || 0) + 1);
}

/** Animate `target` from where `from` (a DOMRect) was to where it is now. */
export function flyFrom(target, from, { duration = 380, delay = 0 } = {}) {
  if (!motionAllowed() || !target?.animate || !from) return;
  const to = target.getBoundingClientRect();
  if (!to.width || !from.width) return;
  const dx = from.left + from.width / 2 - (to.left + to.width / 2);
  const dy = from.top + from.height / 2 - (to.top + to.height / 2);
  const scale = Math.max(0.4, Math.min(1.6, from.width / to.width));
  counted();
  target.animate(
    [
      { transform: `translate(${dx}px, ${dy}px) scale(${scale})`, opacity: 0.7 },
      { transform: "none", opacity: 1 },
    ],
    { duration, delay, easing: "cubic-bezier(.2,.7,.3,1)", fill: "backwards" },
  );
}

/** A short swell: the pending stack grew. */
export function bump(target) {
  if (!motionAllowed() || !target?.animate) return;
  counted();
  target.animate([{ transform: "scale(1.35)" }, { transform: "none" }], { duration: 420, easing: "ease-out" });
}

/** Cards turned face up one after another (a Colour Roulette's reveal). */
export function flipIn(cards, stagger = 280) {
  if (!motionAllowed()) return;
  counted();
  cards.forEach((card, i) =>
    card.animate?.([{ transform: "rotateY(90deg)", opacity: 0.2 }, { transform: "none", opacity: 1 }], {
      duration: 240,
      delay: i * stagger,
      easing: "ease-out",
      fill: "backwards",
    }),
  );
}

// ------------------------------------------------------------------ sound
const SOUND_KEY = "nomercy.sound";
let audio = null;

/** Whether the player turned sound on (off by default). */
export function soundOn() {
  return localStorage.getItem(SOUND_KEY) === "on";
}

export function setSound(on) {
  localStorage.setItem(SOUND_KEY, on ? "on" : "off");
}

// Each cue: notes of [frequency in Hz, seconds], played one after the other.
const CUES = {
  turn: [
    [660, 0.09],
    [880, 0.13],
  ],
  stack: [
    [247, 0.12],
    [208, 0.12],
    [175, 0.22],
  ],
  uno: [
    [784, 0.08],
    [988, 0.08],
    [1175, 0.16],
  ],
  knockout: [
    [392, 0.16],
    [311, 0.16],
    [233, 0.34],
  ],
};

/** Play a cue (turn, stack, uno, knockout) if sound is on. */
export function cue(name) {
  if (!soundOn() || !CUES[name]) return;
  document.body.dataset.lastSound = name; // which cue played last (read by tests)
  try {
    audio ||= new AudioContext();
    let t = audio.currentTime + 0.01;
    for (const [freq, length] of CUES[name]) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.type = "triangle";
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, t);
      gain.gain.exponentialRampToValueAtTime(0.18, t + 0.015);
      gain.gain.exponentialRampToValueAtTime(0.0001, t + length);
      osc.connect(gain).connect(audio.destination);
      osc.start(t);
      osc.stop(t + length + 0.02);
      t += length;
    }
  } catch {
    // No audio device (or the browser refused): the table works the same without sound.
  }
}
