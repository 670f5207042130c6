/**
 * Random-legal-action driver for the peer engine (rajatghate5/uno-no-mercy), run under Node.
 *
 * Written for nomercy's benchmarks/bench_peer.py (not part of the peer, which is fetched at
 * bench time and never committed). Every decision is made by the
 * seat the engine waits for, choosing uniformly among its in-turn legal actions:
 *   phase 'play'                : each card legalMoves() returns, plus 'draw' (no live stack)
 *                                 or 'takeStack' (live stack)  -- isLegalAction()'s rules
 *   phase 'chooseColor'         : the 4 colours
 *   phase 'chooseSwapTarget'    : every active opponent, plus 'declineSwap' if sevenMayDecline
 *   phase 'chooseRouletteColor' : the 4 colours (the victim decides)
 * Out-of-turn callUno/catchUno are never chosen. One step = one reduce() call; createGame()
 * (dealing) is inside the timed region. The choice RNG is the peer's own mulberry32 nextInt,
 * seeded from the game seed.
 *
 * Modes:
 *   node dist/peer_random.mjs cli GAMES PLAYERS [FIRST_SEED]
 *   node dist/peer_random.mjs worker [cpu|wall]   (reads "run START STOP PLAYERS" lines,
 *                                                 writes JSON; cpu: this process's CPU time)
 */
import {
  COLORS,
  createGame,
  legalMoves,
  nextInt,
  reduce,
  type Action,
  type GameState,
} from '@mercy/engine';

const MAX_STEPS = 100_000;

function legalActions(state: GameState): Action[] {
  const phase = state.phase;
  switch (phase.type) {
    case 'play': {
      const me = state.players[state.turn]!.id;
      const acts: Action[] = legalMoves(state, me).map((c) => ({ type: 'play', player: me, cardId: c.id }));
      acts.push(state.pendingDraw > 0 ? { type: 'takeStack', player: me } : { type: 'draw', player: me });
      return acts;
    }
    case 'chooseColor': {
      const me = state.players[state.turn]!.id;
      return COLORS.map((color) => ({ type: 'chooseColor', player: me, color }));
    }
    case 'chooseRouletteColor': {
      const victim = phase.victim;
      return COLORS.map((color) => ({ type: 'chooseRouletteColor', player: victim, color }));
    }
    case 'chooseSwapTarget': {
      const me = state.players[state.turn]!.id;
      const acts: Action[] = state.players
        .filter((p) => p.id !== me && !p.eliminated && !p.finished)
        .map((p) => ({ type: 'chooseSwapTarget', player: me, target: p.id }));
      if (state.rules.sevenMayDecline) acts.push({ type: 'declineSwap', player: me });
      return acts;
    }
    case 'gameOver':
      return [];
  }
}

const SPECS: Record<number, { id: string; name: string; isBot: boolean }[]> = {};
function specs(n: number) {
  return (SPECS[n] ??= Array.from({ length: n }, (_, i) => ({ id: `p${i}`, name: `P${i}`, isBot: true })));
}

export function playOne(seed: number, players: number): { steps: number; truncated: boolean } {
  let state = createGame({ seed, players: specs(players) }).state;
  let rng = (seed * 2654435761) ^ 0x5f3759df;
  let steps = 0;
  while (state.phase.type !== 'gameOver') {
    const acts = legalActions(state);
    const r = nextInt(rng, acts.length);
    rng = r.state;
    state = reduce(state, acts[r.value]!).state;
    if (++steps >= MAX_STEPS) return { steps, truncated: true };
  }
  return { steps, truncated: false };
}

/** Seconds on the chosen clock: this process's CPU time (user + system) or wall time. */
function now(clock: string): number {
  if (clock === 'cpu') {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  }
  return Number(process.hrtime.bigint()) / 1e9;
}

function run(start: number, stop: number, players: number, clock = 'wall') {
  let steps = 0;
  let truncated = 0;
  const t0 = now(clock);
  for (let seed = start; seed < stop; seed++) {
    const r = playOne(seed, players);
    steps += r.steps;
    if (r.truncated) truncated++;
  }
  const seconds = now(clock) - t0;
  return { games: stop - start, steps, seconds, truncated, aborted: 0 };
}

const mode = process.argv[2] ?? 'cli';
if (mode === 'worker') {
  const clock = process.argv[3] ?? 'cpu';
  const info = { side: 'peer-ts', node: process.version, clock };
  process.stdout.write(JSON.stringify(info) + '\n');
  let buf = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    buf += chunk;
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (!line) continue;
      const [cmd, a, b, p] = line.split(/\s+/);
      if (cmd === 'quit') process.exit(0);
      const r = run(Number(a), Number(b), Number(p), clock);
      process.stdout.write(JSON.stringify(r) + '\n');
    }
  });
} else {
  const games = Number(process.argv[3] ?? 2000);
  const players = Number(process.argv[4] ?? 4);
  const first = Number(process.argv[5] ?? 1);
  const r = run(first, first + games, players);
  console.log(
    `peer TS (Node ${process.version}), ${players}p random legal: ${r.games} games, ${r.steps} steps, ` +
      `${r.seconds.toFixed(3)} s, ${(r.steps / r.seconds).toFixed(0)} steps/s, ` +
      `${(r.games / r.seconds).toFixed(1)} games/s, ${(r.steps / r.games).toFixed(1)} steps/game, truncated ${r.truncated}`,
  );
}
