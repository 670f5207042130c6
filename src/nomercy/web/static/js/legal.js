// This seat's legal actions (engine notation, docs/notation.md) grouped the way the table offers
// them. The client never decides what is legal: it sends back one of these strings as it is.

/** Group this seat's legal actions (engine notation) by what the UI offers. */
export function parseLegal(legal, seat) {
  const out = { plays: new Map(), draw: null, pass: null, challenge: null, colours: new Map(), uno: null, catches: new Map() };
  for (const text of legal) {
    let rest = text.trim();
    const m = rest.match(/^(\d+):\s*(.*)$/);
    let actor = seat;
    if (m) {
      actor = Number(m[1]);
      rest = m[2];
    }
    if (seat !== null && actor !== seat) continue;
    const words = rest.split(/\s+/);
    const verb = words[0].toLowerCase();
    if (verb === "play") {
      const card = words[1];
      const a = { text, card, colour: null, target: null, uno: false };
      for (const w of words.slice(2)) {
        if (w.toLowerCase() === "uno") a.uno = true;
        else if (/^\d+$/.test(w)) a.target = Number(w);
        else if (/^[RYGB]$/i.test(w)) a.colour = w.toUpperCase();
      }
      if (!out.plays.has(card)) out.plays.set(card, []);
      out.plays.get(card).push(a);
    } else if (verb === "draw") out.draw = text;
    else if (verb === "pass") out.pass = text;
    else if (verb === "challenge") out.challenge = text;
    else if (verb === "colour" || verb === "color") out.colours.set(words[1].toUpperCase(), text);
    else if (verb === "uno") out.uno = text;
    else if (verb === "catch") out.catches.set(Number(words[1]), text);
  }
  out.unoWithPlay = [...out.plays.values()].some((list) => list.some((a) => a.uno));
  return out;
}
