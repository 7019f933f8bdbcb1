// Whether the table controller runs, on every page (the dealer's screen, the floor's pages): a full-width banner
// when the daemon stops (its heartbeat, web/feed.py: `event: liveness` at least every second) or when this page's
// own event stream drops or falls silent; document.body.dataset.live is "running", "stopped" or "disconnected".
// The stream: the page's own (window.__events) when it has one, else the script tag's data-events (default
// /liveness); the banner fills <div id="liveness">.  Stopped with a refusal kept (the liveness's start_refused,
// web/feed.py: the program did not verify or did not start, P115/P122) the banner says so, in the words the
// service sends, with when, what to do and the command that clears it; body.dataset.startRefused is its cause.
"use strict";
(function () {
  const SILENT_MS = 3000;  // no event for this long: the stream is lost (the service sends one every second)
  const SAID = {
    stopped: "TABLE CONTROLLER NOT RUNNING \u2014 do not deal",
    disconnected: "NO CONNECTION TO THE TABLE SERVICE \u2014 do not deal",
  };
  const script = document.currentScript;
  const url = (script && script.dataset.events) || "/liveness";
  let timer = null;
  let shown = "";

  function clock(epoch) {
    // the viewer's local time with its zone ("14:03:07 EST"); epoch seconds from the daemon's clock
    return new Date(epoch * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit",
      hour12: false, timeZoneName: "short" });
  }

  function dated(iso) {
    // a refusal may be days old: its date too, in the viewer's local time, written as the floor's rows write
    // it (words.js localTime: 2026-11-27 14:03:07 EST), whatever the browser's language
    const parts = new Intl.DateTimeFormat("en-US", {
      year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit",
      hourCycle: "h23", timeZoneName: "short",
    }).formatToParts(new Date(iso));
    const p = Object.fromEntries(parts.map((x) => [x.type, x.value]));
    return p.year + "-" + p.month + "-" + p.day + " " + p.hour + ":" + p.minute + ":" + p.second + " " + p.timeZoneName;
  }

  function line(box, cls, text) {
    const span = document.createElement("span");
    span.className = cls;
    span.textContent = text;
    box.appendChild(span);
    return span;
  }

  function show(state, heartbeat, refused) {
    refused = state === "stopped" ? refused : null;
    const key = state + (state === "stopped" && heartbeat ? " " + heartbeat : "") + JSON.stringify(refused || null);
    document.body.dataset.live = state;
    if (refused) document.body.dataset.startRefused = refused.cause;
    else delete document.body.dataset.startRefused;
    if (key === shown) return;  // unchanged: the alert is not announced again every second
    shown = key;
    const box = document.getElementById("liveness");
    if (!box) return;
    box.setAttribute("role", "alert");
    box.textContent = "";
    if (state === "running") {
      box.hidden = true;
      return;
    }
    const head = document.createElement("strong");
    head.textContent = refused ? refused.said : SAID[state];
    box.appendChild(head);
    if (refused) {
      const why = line(box, "refused", refused.cause_said + " (refused " + dated(refused.at) + ")");
      why.dataset.cause = refused.cause;
      why.dataset.at = refused.at;
      line(box, "refused-action", refused.action_said).dataset.action = refused.action;
      if (refused.action === "call_technician") line(box, "refused-clear", refused.clear);
    }
    if (state === "stopped" && heartbeat) line(box, "last", "last heard from at " + clock(heartbeat));
    box.hidden = false;
  }

  function heard() {
    clearTimeout(timer);
    timer = setTimeout(() => show("disconnected"), SILENT_MS);
  }

  // a page that has its own stream of the service (the dealer's: /events sends the liveness too) shares it: one
  // connection a page (a browser opens six at most to one address)
  const source = window.__events || new EventSource(url);
  source.addEventListener("liveness", (e) => {
    const d = JSON.parse(e.data);
    show(d.running ? "running" : "stopped", d.heartbeat, d.start_refused);
    heard();
  });
  source.addEventListener("status", heard);  // a stream that also sends the status: any event is a sign of life
  source.addEventListener("error", () => show("disconnected"));
  heard();
  window.__liveness = source;  // the browser tests look at it
})();
