// Same-origin HTTP helpers and the per-room seat token store.

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message || code || `HTTP ${status}`);
    this.status = status;
    this.code = code;
  }
}

export async function api(path, body) {
  const init = body === undefined ? {} : {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  };
  let res;
  try {
    res = await fetch(path, init);
  } catch (err) {
    throw new ApiError(0, "network", String(err.message || err));
  }
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (!res.ok) {
    throw new ApiError(res.status, data?.error || data?.code, data?.message || data?.detail);
  }
  return data;
}

// The seat token is kept per room (docs/web-protocol.md: nomercy.token.<CODE>), so closing the
// tab and coming back resumes the seat.
const tokenKey = (code) => `nomercy.token.${code}`;
const seatKey = (code) => `nomercy.seat.${code}`;

/** The saved {seat, token} for a room, or null. */
export function savedSeat(code) {
  const token = localStorage.getItem(tokenKey(code));
  if (!token) return null;
  const seat = localStorage.getItem(seatKey(code));
  return { token, seat: seat === null ? null : Number(seat) };
}

export function saveSeat(code, seat, token) {
  localStorage.setItem(tokenKey(code), token);
  localStorage.setItem(seatKey(code), String(seat));
}

export function forgetSeat(code) {
  localStorage.removeItem(tokenKey(code));
  localStorage.removeItem(seatKey(code));
}

export function rememberName(name) {
  localStorage.setItem("nomercy.name", name);
}

export function lastName() {
  return localStorage.getItem("nomercy.name") || "";
}
