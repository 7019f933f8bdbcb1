// The words a person reads for every code a screen can show (web/words.py, served as /words.json), the
// screens' amounts and times.  Loaded before the page's own script: the words are fetched synchronously,
// so that no page draws an identifier while they load.  say() reads a code as web/words.py's say() does.
//   say("three_of_a_kind") -> "Three of a kind"; say("progressive", "device") -> "Progressive system"
//   money("-10000.48") -> "-$10,000.48" (exact: string arithmetic, never a float)
//   localTime(1795744934) -> "14:03:07 EST" (the browser's zone, its short name)
// A code without words is shown as it is, reported to console.error and kept in window.__unsaid.
"use strict";
(function () {
  let table = {words: {}, from_zero: []};
  try {
    const xhr = new XMLHttpRequest();
    xhr.open("GET", "/words.json", false);
    xhr.send();
    if (xhr.status === 200) table = JSON.parse(xhr.responseText);
    else console.error("words: /words.json answered " + xhr.status);
  } catch (e) {
    console.error("words: /words.json not loaded: " + e);
  }
  const words = table.words;
  window.__unsaid = window.__unsaid || [];

  function unsaid(code) {
    if (!window.__unsaid.includes(code)) {
      window.__unsaid.push(code);
      console.error("words: no words for " + JSON.stringify(code));
    }
    return code;
  }

  function say(code, kind) {
    if (code === null || code === undefined) return "";
    const text = String(code);
    if (kind && Object.hasOwn(words, kind + "." + text)) return words[kind + "." + text];
    if (Object.hasOwn(words, text)) return words[text];
    let m = /^([a-z][a-z0-9_]*):([A-Za-z0-9_]+)$/.exec(text);
    if (m && Object.hasOwn(words, m[1])) {
      const base = words[m[1]], param = m[2];
      if (/^[A-Z]$/.test(param)) return base + ", deck " + param;
      if (/^[0-9]+$/.test(param)) return base + " " + (Number(param) + (table.from_zero.includes(m[1]) ? 1 : 0));
      return base + ": " + say(param);
    }
    m = /^([a-z][a-z0-9_]*): ([\s\S]+)$/.exec(text);
    if (m && Object.hasOwn(words, m[1])) return words[m[1]] + ": " + m[2];
    return unsaid(text);
  }

  function money(amount) {
    const text = String(amount).trim();
    const m = /^([+-]?)([0-9]+)(?:\.([0-9]*))?$/.exec(text);
    if (!m) return text;
    const whole = m[2].replace(/^0+(?=[0-9])/, "").replace(/\B(?=([0-9]{3})+(?![0-9]))/g, ",");
    let cents = (m[3] || "").replace(/0+$/, "");
    cents = cents.length <= 2 ? (cents + "00").slice(0, 2) : cents;
    const zero = /^[0.]*$/.test(m[2] + "." + (m[3] || ""));
    return (m[1] === "-" && !zero ? "-" : "") + "$" + whole + "." + cents;
  }

  function localTime(epoch, withDate) {
    const parts = new Intl.DateTimeFormat("en-US", {
      hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23", timeZoneName: "short",
      year: "numeric", month: "2-digit", day: "2-digit",
    }).formatToParts(new Date(Number(epoch) * 1000));
    const p = Object.fromEntries(parts.map((x) => [x.type, x.value]));
    const time = p.hour + ":" + p.minute + ":" + p.second + " " + p.timeZoneName;
    return withDate ? p.year + "-" + p.month + "-" + p.day + " " + time : time;
  }

  window.words = {table: words, say: say, money: money, localTime: localTime};
  window.say = say;
  window.money = money;
  window.localTime = localTime;
})();
