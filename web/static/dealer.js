// The dealer's screen: read-only, redrawn from the daemon's public status at every change (server-sent events).
// What to do next (next_action), the alarms, then the layout: one column per seat, one row per wager, the
// amounts from round.chips at settlement (the one computation of what is paid, taken or returned).
// Words come from words.js (say, money, localTime): no code of the status is shown as it is.
"use strict";
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
const SETTLING = new Set(["settled", "voided", "complete"]);
const ORDINAL = ["1st", "2nd", "3rd", "4th", "5th", "6th"];
window.__latencies = [];

function cards(list, count) {
  if (Array.isArray(list)) return list.map((c) => '<span class="card" data-card="' + esc(c) + '">' + cardSVG(c) + "</span>").join("");
  let out = "";
  for (let i = 0; i < (count || 0); i++) out += '<span class="card" data-card="back">' + cardSVG("back") + "</span>";
  return out;
}

function chipsOf(r) {
  // round.chips: what the dealer pays, takes or returns as the chips stand on the layout, the one computation
  // of every amount at settlement (controller/round/chips.py); no amount is worked out here from a net
  return r.chips || null;
}

function cents(text) {
  // exact: the daemon sends amounts as decimal strings ("-12.50"); never through a binary float
  const neg = String(text).startsWith("-");
  const [whole, frac = ""] = String(text).replace(/^[-+]/, "").split(".");
  const c = BigInt(whole || "0") * 100n + BigInt((frac + "00").slice(0, 2));
  return neg ? -c : c;
}

function fromCents(c) {
  const a = c < 0n ? -c : c;
  return (c < 0n ? "-" : "") + (a / 100n).toString() + "." + (a % 100n).toString().padStart(2, "0");
}

// --- the next action ------------------------------------------------------------------------------------------

function pressText(a) {
  if (!a.button) return "";
  return a.key ? "supervisor's key, then " + say(a.button) : "press " + say(a.button);
}

function clause(text) {
  return text ? ' <span class="clause">(' + esc(text) + ")</span>" : "";
}

function choiceText(c) {
  let t = say(c.decision || c.button);
  if (c.multiple) t += " " + c.multiple + "\u00d7";
  if (c.amount) t += " " + money(c.amount);
  return t;
}

function commonSeats(steps) {
  // the seats every step names, when every step that names seats names the same ones (a held jackpot's steps)
  const named = (steps || []).map((st) => st.seats && st.seats.length ? st.seats : st.seat ? [st.seat] : null).filter(Boolean);
  if (named.length < 2 || named.some((x) => x.join() !== named[0].join())) return null;
  return named[0];
}

function stepParams(step) {
  const out = [];
  if (step.seat !== undefined && step.seat !== null) out.push("seat " + step.seat);
  if (step.seats && step.seats.length) out.push((step.seats.length === 1 ? "seat " : "seats ") + step.seats.join(", "));
  if (step.wager) out.push(say(step.wager));
  if (step.line) out.push(say(step.line));
  if (step.amount) out.push(money(step.amount));
  if (step.device) out.push(say(step.device, "device"));
  if (step.button) out.push("press " + say(step.button));
  return out.length ? " \u2014 " + esc(out.join(", ")) : "";
}

function passIndex(a) {
  // part B's `paying`: the pass being paid (an index, or the pass itself); the first when not said
  if (typeof a.paying === "number") return a.paying;
  if (a.paying && a.passes) {
    const i = a.passes.findIndex((p) => JSON.stringify(p) === JSON.stringify(a.paying));
    if (i >= 0) return i;
  }
  return 0;
}

function actionHTML(s) {
  const a = s.next_action;
  const r = s.round || {};
  if (!a) {
    if (s.next_step) return '<p class="say">' + esc(say(s.next_step.step)) + ": " + esc(pressText(s.next_step)) + clause(s.next_step.clause) + "</p>";
    if (r.phase) return '<p class="say">' + esc(say(r.phase)) + ": nothing to press</p>";
    return '<p class="say">Table ' + esc(say(s.state)) + "</p>";
  }
  const common = commonSeats(a.steps);  // the seats every step names: said once, in the head
  let head = "";
  if (a.action === "decide" && a.seat) {
    head = '<span class="who">Seat ' + a.seat + "</span> to act";
    const choices = a.choices || (a.buttons || []).map((b) => ({ button: b }));
    if (choices.length) {
      head += ": " + choices.map((c, i) => (i === 0 ? "" : i === choices.length - 1 ? " or " : ", ") +
        '<span class="choice" data-button="' + esc(c.button) + '">' + esc(choiceText(c)) + "</span>").join("");
    }
  } else if (a.action === "draw_cards") {
    head = esc(say(a.action)) + ": " + a.cards + " to " + esc(say(String(a.to || "").split(":")[0]) + (String(a.to || "").includes(":") ? " " + String(a.to).split(":")[1] : ""));
  } else {
    head = esc(say(a.action));
    if (a.seat) head += ", seat " + a.seat;
    else if (common) head += ", " + (common.length > 1 ? "seats " : "seat ") + common.join(", ");
    const p = pressText(a);
    if (p) head += ": " + esc(p);
  }
  let out = '<p class="say" data-action="' + esc(a.action) + '">' + head + clause(a.why) + "</p>";
  if (a.passes && a.passes.length) {
    const now = passIndex(a);
    out += '<ol class="passes">' + a.passes.map((p, i) =>
      '<li class="' + (i === now ? "current" : "") + '" data-pass="' + i + '"><span class="n">' + (ORDINAL[i] || i + 1) + " pass</span> " +
      esc(p.wagers.map(say).join(", ")) + (p.seats ? ", seats " + p.seats.join(", ") : "") + clause(p.clause) + "</li>").join("") + "</ol>";
  }
  if (a.steps && a.steps.length) {
    out += '<ol class="steps">' + a.steps.map((st) =>
      '<li data-step="' + esc(st.do) + '"><span class="n">' + st.n + ".</span> " + esc(say(st.do)) +
      stepParams(common ? { ...st, seat: null, seats: null } : st) + clause(st.clause) + "</li>").join("") + "</ol>";
  }
  return out;
}

// --- alarms and alerts ------------------------------------------------------------------------------------------

function phrase(text) {
  // a code is said in words; a field of free text (a halt's reason, an Envy Bonus's line "envy from seats 1")
  // is a sentence already: shown as it is, its first letter a capital
  const t = String(text || "");
  return /^[a-z][a-z0-9_]*(:[A-Za-z0-9_]+)?$/.test(t) ? say(t) : t.charAt(0).toUpperCase() + t.slice(1);
}

function hitText(h) {
  return "Seat " + h.seat + ": " + esc(say(h.wager)) + ", " + esc(phrase(h.line)) + ', <span class="amt">' + esc(money(h.amount)) + "</span>" +
    (h.meter ? " from the " + esc(say(h.meter)) : "");
}

function alarmHit(s, al) {
  // a held jackpot's alarm names its hit in its id (jackpot_held:<round>:<hit>@<since>, controller/service/alarms.py)
  if (al.kind !== "jackpot_held") return null;
  const m = /^jackpot_held:[^:@]+:(\d+)@/.exec(al.id);
  return m ? (s.validation || []).find((h) => h.hit === Number(m[1])) || null : null;
}

function heldText(hits) {
  // the held wins of one alarm line: alike wins (the same wager, line and amount: the Envy Bonuses of one
  // Progressive win) said once with their seats, each seat marked with its hit
  const groups = [];
  for (const h of hits) {
    const k = [h.wager, h.line, h.amount, h.meter].join("|");
    const g = groups.find((x) => x.k === k);
    if (g) g.hits.push(h); else groups.push({ k, hits: [h] });
  }
  return groups.map(({ hits: hs }) => {
    const h = hs[0];
    const seats = hs.map((x) => '<span data-hit="' + x.hit + '">' + x.seat + "</span>").join(", ");
    return (hs.length > 1 ? "Seats " : "Seat ") + seats + ": " + esc(say(h.wager)) + ", " + esc(phrase(h.line)) + ', <span class="amt">' +
      esc(money(h.amount)) + "</span>" + (hs.length > 1 ? " each" : "") + (h.meter ? " from the " + esc(say(h.meter)) : "");
  }).join("; ");
}

function alarmsHTML(s) {
  // ISA-18.2: an alarm a line, its priority first. The wins held in one round make one line (a Progressive
  // win and its Envy Bonuses are one event for the supervisor, validated with one key: P105), so that an
  // alarm flood does not push the layout off the screen; each win is named in it.
  const lines = [];
  const held = new Map();
  for (const al of s.alarms || []) {
    const hit = alarmHit(s, al);
    if (!hit) { lines.push({ al, hits: null }); continue; }
    const k = al.priority + "|" + (al.acknowledged ? al.acknowledged.by : "");
    if (!held.has(k)) { held.set(k, { al, ids: [], hits: [] }); lines.push(held.get(k)); }
    held.get(k).ids.push(al.id);
    held.get(k).hits.push(hit);
  }
  return lines.map(({ al, hits, ids }) => {
    let what;
    if (hits) what = heldText(hits);  // what the supervisor does: the action's steps above
    else {
      const parts = [say(al.kind, "alarm")];
      if (al.seat !== null && al.seat !== undefined) parts.push("seat " + al.seat);
      if (al.device) parts.push(say(al.device, "device"));
      what = esc(parts.join(", "));
    }
    const ack = al.acknowledged ? "acknowledged by " + al.acknowledged.by + " at " + localTime(al.acknowledged.at) : "not acknowledged";
    const since = (hits ? "held since " : "since ") + localTime(al.since);
    return '<li class="alarm ' + esc(al.priority) + (al.acknowledged ? " acknowledged" : "") + '" data-alarm="' + esc((ids || [al.id]).join(" ")) + '">' +
      '<span class="priority">' + esc(say(al.priority, "priority")) + "</span> " + what +
      ((al.clauses || []).length && !hits ? clause(al.clauses.join(", ")) : "") +  // a held win's clause: in its steps
      ' <span class="since">' + esc(since) + '</span> <span class="ack">' + esc(ack) + "</span></li>";
  }).join("");
}

function alertsHTML(s, r) {
  let out = "";
  const alarmed = new Set((s.alarms || []).map((al) => alarmHit(s, al)).filter(Boolean).map((h) => h.hit));
  for (const h of s.validation || []) {  // a held win without its alarm line (a daemon older than the alarms)
    if (!alarmed.has(h.hit)) out += '<div class="alert pending" data-hit="' + h.hit + '">' + hitText(h) + ": awaiting the supervisor</div>";
  }
  for (const h of s.link_pending || []) {
    out += '<div class="alert pending" data-link-hit="' + h.seq + '">Linked ' + esc(say(h.meter)) + " jackpot " + esc(money(h.paid)) +
      " at table " + esc(h.table) + " (" + esc(h.asset) + "), seat " + h.seat + ": awaiting the supervisor; the meter reset to " + esc(money(h.after)) + "</div>";
  }
  if (r.halted) out += '<div class="alert halted">Halted: ' + esc(phrase(r.halted.reason)) + "</div>";
  if (s.told && s.told.kind === "refused") out += '<div class="alert notice">Press refused' + (s.told.cause ? ": " + esc(say(s.told.cause)) : "") + clause(s.told.clauses.join(", ")) + "</div>";
  if (s.notice_told) out += '<div class="alert notice">' + esc(say(s.notice_told.kind)) + (s.notice_told.cause ? ": " + esc(say(s.notice_told.cause)) : "") + clause((s.notice_told.clauses || []).join(", ")) + "</div>";
  const menu = (s.next_action || {}).menu;  // the options as data (each with its seat button and clause)
  if (menu) out += '<div class="alert menu">Irregularity: ' + menu.map((o) => '<span data-option="' + o.n + '">' + esc(say(o.button)) + " button: " +
    esc(say(o.what)) + clause(o.clause) + "</span>").join("; ") + "</div>";
  else if (s.irregularity_menu) out += '<div class="alert menu">Irregularity: ' + s.irregularity_menu.map((o, i) => "seat " + (i + 1) + " button: " + esc(o)).join("; ") + "</div>";
  if (s.progressive_wagers && s.progressive_wagers !== "enabled") out += '<div class="alert notice">Progressive wagers ' + esc(say(s.progressive_wagers.split(":")[0])) + "</div>";
  return out;
}

// --- the layout: a column per seat, a row per wager ---------------------------------------------------------------

function wagerRows(r, seats) {
  // the wagers in the order the dealer pays them (P65: pass by pass), else as the seats hold them
  if (r.payment_passes && r.payment_passes.length) return r.payment_passes.map((p, i) => p.wagers.map((w) => [w, i])).flat();
  const names = [];
  for (const n of seats) for (const w of Object.keys(((r.seats || {})[n] || {}).wagers || {})) if (!names.includes(w)) names.push(w);
  if (r.settlement) for (const n of seats) for (const w of Object.keys(r.settlement[n] || {})) if (!names.includes(w)) names.push(w);
  return names.map((w) => [w, null]);
}

function paymentOrder(r) {
  // (seat, wager) -> its place in the order of payment (P65, R1: from the dealer's right, seat by seat)
  const order = r.payment_order ||
    Object.keys(r.settlement || {}).map(Number).sort((a, b) => b - a).map((seat) => ({ seat, wagers: Object.keys(r.settlement[seat]) }));
  const at = {};
  let k = 0;
  for (const p of order) for (const w of p.wagers) if (at[p.seat + " " + w] === undefined) at[p.seat + " " + w] = k++;
  return at;
}

function winners(s, chips) {
  const out = new Set();
  if (chips) for (const [seat, c] of Object.entries(chips)) if (c.winner) out.add(Number(seat));
  for (const h of s.validation || []) out.add(h.seat);
  return out;
}

function seatHead(n, seat, r, won) {
  const cls = ["seat"];
  let flag = "";
  if (!seat) cls.push("empty");
  else {
    if (seat.wagers && "progressive" in seat.wagers) cls.push("progressive");
    if (r.to_act && r.to_act.seat === n) { cls.push("acting"); flag = "To act"; }
    const state = seat.left ? "left" : seat.skipped ? "skipped" : seat.folded ? "folded" : "";
    if (state) { cls.push(state); flag = say(state, "seat"); }
    if (won) { cls.push("winner"); flag = "Winner"; }
  }
  return '<th scope="col" class="' + cls.join(" ") + '" data-seat="' + n + '"><div class="seathead"><span class="seatno">' + n + "</span>" +
    (seat && seat.wagers && "progressive" in seat.wagers ? '<span class="litmark" title="Progressive wager accepted" aria-label="Progressive wager accepted">\u25cf</span>' : "") +
    (flag ? '<span class="flag">' + esc(flag) + "</span>" : "") + "</div>" +
    (seat ? '<div class="cards">' + cards(seat.cards, seat.cards) + "</div>" : "") + "</th>";
}

function layoutHTML(s, r) {
  const seatsView = r.seats || {};
  const count = Math.max(6, ...Object.keys(seatsView).map(Number));
  const seats = [];
  for (let i = 1; i <= count; i++) seats.push(i);
  const settling = SETTLING.has(r.phase) && r.settlement;
  const chips = settling ? chipsOf(r) : null;
  const won = winners(s, chips);
  const order = settling ? paymentOrder(r) : {};
  const passes = (r.payment_passes || []).length;
  let html = '<thead><tr><th scope="col" class="corner">Seat</th>' + seats.map((n) => seatHead(n, seatsView[n], r, won.has(n))).join("") + "</tr></thead><tbody>";
  let lastPass = null;
  for (const [w, pass] of wagerRows(r, seats)) {
    const first = pass !== null && pass !== lastPass && passes > 1;
    lastPass = pass;
    html += '<tr class="' + (first ? "passstart" : "") + '" data-row-wager="' + esc(w) + '"><th scope="row">' +
      (first ? '<span class="passno">' + ORDINAL[pass] + "</span> " : "") + esc(say(w)) + "</th>";
    for (const n of seats) {
      if (chips) {
        const c = ((chips[n] || {}).wagers || {})[w];
        if (!c) { html += "<td></td>"; continue; }
        const shown = c.do !== "none";
        html += '<td class="pw ' + esc(c.do) + (won.has(n) ? " won" : "") + '" data-seat="' + n + '" data-wager="' + esc(w) + '" data-order="' + order[n + " " + w] + '">' +
          // a win the payout limit took all of (R6): "Limit", not "Pay $0.00"
          '<span class="what">' + esc(!shown ? "\u2014" : c.do === "pay" && cents(c.amount) === 0n ? "Limit" : say(c.do, "chips")) + '</span> <span class="amt">' + (shown ? esc(money(c.amount)) : "") + "</span></td>";
      } else {
        const amount = ((seatsView[n] || {}).wagers || {})[w];
        const acting = r.to_act && r.to_act.seat === n ? " acting" : "";
        html += amount === undefined ? '<td class="' + acting + '"></td>' : '<td class="wager' + acting + (w === "progressive" ? " lit" : "") + '" data-seat="' + n + '" data-wager="' + esc(w) + '"><span class="amt">' + esc(money(amount)) + "</span></td>";
      }
    }
    html += "</tr>";
  }
  html += "</tbody>";
  if (chips) {
    html += '<tfoot><tr><th scope="row">Seat total</th>' + seats.map((n) => {
      const c = chips[n];
      if (!c) return "<td></td>";
      const b = cents(c.balance);
      const what = b > 0n ? "pay" : b < 0n ? "take" : "even";
      return '<td class="total ' + what + (won.has(n) ? " won" : "") + '" data-seat="' + n + '" data-total="' + esc(c.balance) + '"><span class="what">' + (what === "even" ? "Even" : esc(say(what, "chips"))) +
        '</span> <span class="amt">' + (b === 0n ? "" : esc(money(fromCents(b < 0n ? -b : b)))) + "</span></td>";
    }).join("") + "</tr></tfoot>";
  }
  return html;
}

// --- the frame ------------------------------------------------------------------------------------------------------

function render(s) {
  const r = s.round || {};
  document.getElementById("table").textContent = s.table + " \u00b7 " + say(s.game);
  document.getElementById("phase").textContent = say(r.phase || s.state);
  document.getElementById("round").textContent = r.round_id ? "Round " + r.round_id : "";
  document.getElementById("updated").textContent = s.updated ? "as of " + localTime(s.updated) : "";
  document.getElementById("action").innerHTML = actionHTML(s);
  document.getElementById("alarms").innerHTML = alarmsHTML(s);
  document.getElementById("alerts").innerHTML = alertsHTML(s, r);
  document.getElementById("dealer").innerHTML = cards(r.dealer, r.dealer);
  const community = r.community || {};
  document.getElementById("community").innerHTML = cards(Object.keys(community).sort().map((k) => community[k]));
  document.getElementById("seats").innerHTML = layoutHTML(s, r);
  document.getElementById("meters").innerHTML = Object.entries(s.meters || {}).map(([k, v]) =>
    '<span class="meter"><span class="name">' + esc(say(k)) + '</span> <span class="num">' + esc(money(v)) + "</span></span>").join("");
  // ISA-101: the normal state is said calmly in two words; a device not online is named, with its state
  const trouble = Object.entries(s.devices || {}).filter(([, v]) => v !== "online");
  document.getElementById("devices").innerHTML = (trouble.length ? trouble.map(([k, v]) =>
    '<span class="device ' + esc(v) + '" data-device="' + esc(k) + '">' + esc(say(k, "device")) + " " + esc(say(v)) + "</span>").join("")
    : '<span class="device online" data-device="all">All online</span>') +
    (s.out_of_order && s.out_of_order.length ? '<span class="device offline">Out of order: ' + esc(s.out_of_order.map((d) => say(d, "device")).join(", ")) + "</span>" : "");

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
window.__events = source;  // liveness.js listens to the same stream (its `liveness` events)
source.onopen = () => { window.__openedAt = Date.now(); };
source.addEventListener("status", (e) => render(JSON.parse(e.data)));
source.onerror = () => { document.getElementById("action").innerHTML = '<p class="say">No connection to the table service: retrying\u2026</p>'; };
