// The dealer's screen: read-only, redrawn from the daemon's public status at every change (server-sent events).
"use strict";
const PHASES = { wagers: "Place your bets", no_more_bets: "No more bets", dealing: "Dealing", decisions: "Decisions",
  reveal: "Dealer's hand", settled: "Settle", complete: "Round complete", voided: "Round void", halted: "Halted" };
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
const words = (s) => String(s).replace(/_/g, " ");
window.__latencies = [];

function cards(list, count) {
  if (Array.isArray(list)) return list.map((c) => '<span class="card" data-card="' + esc(c) + '">' + cardSVG(c) + "</span>").join("");
  let out = "";
  for (let i = 0; i < (count || 0); i++) out += '<span class="card" data-card="back">' + cardSVG("back") + "</span>";
  return out;
}

function nextAction(s) {
  if (s.message) return s.message;
  if (s.next_step) return "Press " + words(s.next_step.button) + (s.next_step.key ? " with the supervisor's key" : "") + ": " + words(s.next_step.step) + ".";
  const r = s.round;
  if (!r) return s.state === "open" ? "Open for wagers: press no more bets when the wagers are placed." : "Table " + words(s.state) + ".";
  if (r.phase === "decisions" && r.to_act) return "Seat " + r.to_act.seat + " to act.";
  return (PHASES[r.phase] || words(r.phase)) + ".";
}

function settlementRows(r) {
  // The dealer's order of payment as the daemon journaled it (P65: chapter 11 of the game, seat by seat and
  // pass by pass, from the dealer's right, R1); without it, the highest seat first with all its wagers.
  const order = r.payment_order ||
    Object.keys(r.settlement).map(Number).sort((a, b) => b - a).map((seat) => ({ seat, wagers: Object.keys(r.settlement[seat]) }));
  const last = {};
  order.forEach((p, i) => { last[p.seat] = i; });
  const totals = {};
  let rows = '<tr><th>Seat</th><th>Pay / take, in this order</th><th class="num">Seat total</th></tr>';
  order.forEach((p, i) => {
    const wagers = r.settlement[p.seat] || {};
    let cells = "";
    for (const name of p.wagers) {
      const w = wagers[name];
      if (!w) continue;
      const cents = toCents(w.net);
      totals[p.seat] = (totals[p.seat] || 0n) + cents;
      const what = cents > 0n ? "pay" : cents < 0n ? "take" : w.result === "void" ? "return" : "push";
      cells += '<span class="pw ' + what + '" data-seat="' + p.seat + '" data-wager="' + esc(name) + '"><span class="what">' + what +
        '</span> <span class="name">' + esc(words(name)) + '</span> <span class="amt">' + (cents === 0n ? "" : fmtCents(cents)) + "</span>" +
        (w.line ? ' <span class="line">' + esc(words(w.line)) + "</span>" : "") + "</span>";
    }
    let total = "";
    if (last[p.seat] === i) {
      const t = totals[p.seat] || 0n;
      total = '<span class="' + (t > 0n ? "pay" : t < 0n ? "take" : "") + '">' + (t > 0n ? "pay " : t < 0n ? "take " : "even ") + fmtCents(t) + "</span>";
    }
    rows += '<tr data-row="' + p.seat + '"><th class="seatno">' + p.seat + "</th><td>" + cells + '</td><td class="num total">' + total + "</td></tr>";
  });
  return rows;
}

function toCents(text) {
  // exact: the daemon sends amounts as decimal strings ("-12.50"); never through a binary float
  const neg = text.startsWith("-");
  const [whole, frac = ""] = text.replace(/^[-+]/, "").split(".");
  const cents = BigInt(whole || "0") * 100n + BigInt((frac + "00").slice(0, 2));
  return neg ? -cents : cents;
}

function fmtCents(c) {
  const a = c < 0n ? -c : c;
  return "$" + (a / 100n).toString() + "." + (a % 100n).toString().padStart(2, "0");
}

function seatBox(n, seat, r) {
  if (!seat) return '<div class="seat empty"><div class="seatno">' + n + "</div></div>";
  const lit = seat.wagers && ("progressive" in seat.wagers);
  const state = seat.left ? "left" : seat.skipped ? "skipped" : seat.folded ? "folded" : "";
  const acting = r.to_act && r.to_act.seat === n;
  let w = "";
  for (const [name, amount] of Object.entries(seat.wagers || {})) {
    w += '<div class="wager' + (name === "progressive" ? " lit" : "") + '"><span class="name">' + esc(words(name)) + '</span><span class="num">' + fmtCents(toCents(amount)) + "</span></div>";
  }
  return '<div class="seat' + (lit ? " progressive" : "") + (acting ? " acting" : "") + (state ? " " + state : "") + '" data-seat="' + n + '">' +
    '<div class="seatno">' + n + (lit ? ' <span class="litmark" title="progressive wager accepted">&#9679;</span>' : "") + "</div>" +
    '<div class="cards">' + cards(seat.cards, seat.cards) + "</div>" +
    (state ? '<div class="seatstate">' + state + "</div>" : "") + w + "</div>";
}

function render(s) {
  const r = s.round || {};
  document.getElementById("table").textContent = s.table + " \u00b7 " + words(s.game);
  document.getElementById("phase").textContent = r.phase ? (PHASES[r.phase] || words(r.phase)) : words(s.state);
  document.getElementById("round").textContent = r.round_id ? "round " + r.round_id : "";
  document.getElementById("action").textContent = nextAction(s);

  let alerts = "";
  for (const h of s.validation || []) {
    alerts += '<div class="alert pending" data-hit="' + h.hit + '">Seat ' + h.seat + " " + esc(words(h.wager)) + " " + esc(words(h.line)) +
      " " + fmtCents(toCents(h.amount)) + (h.meter ? " from the " + esc(h.meter) + " meter" : "") + ": awaiting supervisor</div>";
  }
  for (const h of s.link_pending || []) {
    alerts += '<div class="alert pending" data-link-hit="' + h.seq + '">Linked ' + esc(words(h.meter)) + " jackpot " + fmtCents(toCents(h.paid)) +
      " at table " + esc(h.table) + " (" + esc(h.asset) + "), seat " + h.seat + ": awaiting supervisor; the meter reset to " + fmtCents(toCents(h.after)) + "</div>";
  }
  if (r.halted) alerts += '<div class="alert halted">Halted: ' + esc(r.halted.reason) + "</div>";
  if (s.notice) alerts += '<div class="alert notice">' + esc(s.notice) + "</div>";
  if (s.irregularity_menu) alerts += '<div class="alert menu">Irregularity: ' + s.irregularity_menu.map((o, i) => "seat button " + (i + 1) + ": " + esc(o)).join("; ") + "</div>";
  if (s.progressive_wagers && s.progressive_wagers !== "enabled") alerts += '<div class="alert notice">Progressive wagers ' + esc(s.progressive_wagers) + "</div>";
  document.getElementById("alerts").innerHTML = alerts;

  document.getElementById("dealer").innerHTML = cards(r.dealer, r.dealer);
  const community = r.community || {};
  document.getElementById("community").innerHTML = cards(Object.keys(community).sort().map((k) => community[k]));
  let seats = "";
  const n = Math.max(6, ...Object.keys(r.seats || {}).map(Number));
  for (let i = 1; i <= n; i++) seats += seatBox(i, (r.seats || {})[i], r);
  document.getElementById("seats").innerHTML = seats;

  const box = document.getElementById("settlement-box");
  if (r.settlement) { document.getElementById("settlement").innerHTML = settlementRows(r); box.hidden = false; } else box.hidden = true;

  document.getElementById("meters").innerHTML = Object.entries(s.meters || {}).map(([k, v]) =>
    '<tr><td>' + esc(words(k)) + '</td><td class="num">' + fmtCents(toCents(v)) + "</td></tr>").join("");
  document.getElementById("devices").innerHTML = Object.entries(s.devices || {}).map(([k, v]) =>
    '<span class="device ' + esc(v) + '">' + esc(k) + ": " + esc(v) + "</span>").join("") +
    (s.out_of_order && s.out_of_order.length ? '<span class="device offline">out of order: ' + esc(s.out_of_order.join(", ")) + "</span>" : "");

  document.body.dataset.phase = r.phase || s.state;
  document.body.dataset.round = r.round_id || "";
  document.body.dataset.presses = s.presses_handled;
  window.__status = s;  // what this frame shows (the browser tests compare the page with it)
  // web.event_to_screen: from the daemon's status (its "updated" time) to the frame that shows it
  // (only statuses published while this page listened: the first one sent on connecting may be old)
  requestAnimationFrame(() => {
    if (window.__openedAt && s.updated * 1000 >= window.__openedAt) window.__latencies.push(Date.now() - s.updated * 1000);
    document.body.dataset.shown = s.updated;
  });
}

const source = new EventSource("/events");
source.onopen = () => { window.__openedAt = Date.now(); };
source.addEventListener("status", (e) => render(JSON.parse(e.data)));
source.onerror = () => { document.getElementById("action").textContent = "No connection to the table service: retrying\u2026"; };
