// The pit's page (web/pit/server.py): the server draws the alarms and the tables' rows in words and sends them
// by server-sent events (`event: pit`: the alarms, and the rows that changed or the whole table); this puts
// them in place at the next frame.
// document.body.dataset.version is the version drawn; data-live "connected" or "disconnected" (the banner).
// window.__latencies: for each table row whose status stamp (data-updated) changed, the time from that stamp
// (the table's clock: same machine in the benchmark) to the frame that drew it, in ms (tests/bench/pit.py).
"use strict";
(function () {
  // every form posted carries the login's token (web/guard.py), from the page's head: the acknowledgements'
  // forms come drawn for every page alike, by server-sent events
  document.addEventListener("submit", (e) => {
    const form = e.target;
    const meta = document.querySelector('meta[name="csrf-token"]');
    if (!meta || form.querySelector('input[name="csrf"]')) return;
    const field = document.createElement("input");
    field.type = "hidden";
    field.name = "csrf";
    field.value = meta.content;
    form.appendChild(field);
  }, true);
  window.__latencies = [];
  const seen = {};
  let pending = null;
  let banner = null;

  function say(state) {
    document.body.dataset.live = state;
    banner = banner || document.getElementById("pit-banner");
    if (!banner) return;
    banner.hidden = state === "connected";
    banner.textContent = state === "connected" ? "" : "NO CONNECTION TO THE PIT SERVER: what is shown may be old";
  }

  function note(row, now) {
    // the row's status stamp changed: the time from it to this frame (not for the first look at a table)
    const stamp = row.dataset.updated;
    const table = row.dataset.table;
    if (stamp && seen[table] !== stamp) {
      if (seen[table] !== undefined) window.__latencies.push((now - Number(stamp)) * 1000);
      seen[table] = stamp;
    }
  }

  function draw() {
    const d = pending;
    pending = null;
    if (!d) return;
    const alarms = document.getElementById("alarms");
    const tables = document.getElementById("tables");
    const now = Date.now() / 1000;
    if (d.alarms_html !== undefined) alarms.innerHTML = d.alarms_html;  // absent: the page as drawn is current
    alarms.dataset.count = d.alarms;
    if (d.tables_html !== undefined) {  // the whole table (a table joined the pit, or the first message)
      tables.innerHTML = d.tables_html;
      for (const row of tables.querySelectorAll("tr[data-table]")) note(row, now);
    }
    for (const [table, html] of Object.entries(d.rows || {})) {  // only the rows that changed
      const row = tables.querySelector(`tr[data-table="${CSS.escape(table)}"]`);
      if (!row) continue;
      row.outerHTML = html;
      note(tables.querySelector(`tr[data-table="${CSS.escape(table)}"]`), now);
    }
    tables.dataset.count = d.tables;
    document.body.dataset.database = d.database ? "yes" : "no";
    document.body.dataset.version = d.version;
  }

  function open() {
    // the version the page was drawn at: the server sends only what changed since (nothing to redraw at once)
    const drawn = (document.getElementById("tables") || {dataset: {}}).dataset.drawn || "";
    const source = new EventSource("/events?drawn=" + encodeURIComponent(drawn));
    source.addEventListener("open", () => say("connected"));
    source.addEventListener("error", () => say("disconnected"));
    source.addEventListener("pit", (ev) => {
      say("connected");
      const d = JSON.parse(ev.data);
      const first = pending === null;
      if (first) pending = d;
      else {  // not drawn yet: merged, as the server merges for a slow page
        const rows = d.tables_html !== undefined ? {} : Object.assign({}, pending.rows, d.rows);
        const whole = d.tables_html !== undefined ? d.tables_html : pending.tables_html;
        pending = Object.assign({}, d, { rows: rows });
        if (whole !== undefined) pending.tables_html = whole;
      }
      if (first) requestAnimationFrame(draw);
    });
  }

  document.addEventListener("DOMContentLoaded", () => {
    const tables = document.getElementById("tables");
    if (tables) for (const row of tables.querySelectorAll("tr[data-table]")) seen[row.dataset.table] = row.dataset.updated;
    open();
  });
})();
