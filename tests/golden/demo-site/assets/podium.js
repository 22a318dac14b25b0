/* podium: progressive enhancement only. Every page is complete without this file.
   - mission cards: an agent chip highlights that agent's points on hover, focus and press;
   - the ledger: sorting and filtering over every run (data from api/results/ledger.js,
     loaded on first use, so it works from file:// too). All text goes in via textContent.
     The filters and the sort live in the URL fragment (runs/index.html#agent=kestrel&kind=timed_out,
     plus sort=overall&dir=asc when not the default newest-first), restored on load and kept up
     to date with history.replaceState, so a filtered view is a link. `mission` matches a
     mission name or "name version"; ?agent=… in the query is still read when there is no fragment. */
(function () {
  "use strict";

  function highlightChips(card) {
    var plot = card.querySelector("svg.plot");
    var chips = Array.prototype.slice.call(card.querySelectorAll(".chip[data-agent]"));
    if (!plot || !chips.length) return;
    var pressed = null;
    function show(agent) {
      plot.classList.toggle("highlighting", Boolean(agent));
      plot.querySelectorAll(".pt").forEach(function (pt) {
        pt.classList.toggle("hl", Boolean(agent) && pt.getAttribute("data-agent") === agent);
      });
    }
    chips.forEach(function (chip) {
      var agent = chip.getAttribute("data-agent");
      chip.addEventListener("mouseenter", function () { show(agent); });
      chip.addEventListener("mouseleave", function () { show(pressed); });
      chip.addEventListener("focus", function () { show(agent); });
      chip.addEventListener("blur", function () { show(pressed); });
      chip.addEventListener("click", function () {
        pressed = pressed === agent ? null : agent;
        chips.forEach(function (c) { c.setAttribute("aria-pressed", String(c.getAttribute("data-agent") === pressed)); });
        show(pressed || agent);
      });
    });
  }

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  function link(href, text, cls) {
    var a = el("a", cls, text);
    a.setAttribute("href", href);
    return a;
  }

  function Ledger(form, table) {
    this.form = form;
    this.table = table;
    this.body = table.tBodies[0];
    this.prefix = form.getAttribute("data-ledger").replace(/api\/results\/ledger\.js$/, "");
    this.data = null;
    this.loading = null;
    this.sort = { key: "date", dir: -1 };
    this.labels = {};
    var self = this;
    Array.prototype.forEach.call(form.elements.kind.options, function (o) { self.labels[o.value] = o.textContent; });
  }

  Ledger.prototype.load = function () {
    var self = this;
    if (this.data) return Promise.resolve(this.data);
    if (!this.loading) {
      this.loading = new Promise(function (resolve, reject) {
        var script = document.createElement("script");
        script.src = self.form.getAttribute("data-ledger");
        script.onload = function () {
          var raw = window.podiumLedger;
          self.data = raw.rows.map(function (row) {
            var item = {};
            raw.columns.forEach(function (name, i) { item[name] = row[i]; });
            return item;
          });
          resolve(self.data);
        };
        script.onerror = function () { reject(new Error("ledger data could not be loaded")); };
        document.head.appendChild(script);
      });
    }
    return this.loading;
  };

  Ledger.prototype.value = function (row, key) {
    if (key === "mission") return row.mission + " " + row.version;
    if (key === "agent") return row.agent.toLowerCase();
    return row[key];
  };

  Ledger.prototype.matches = function (row, f) {
    if (f.kind && row.kind !== f.kind) return false;
    if (f.agent && row.agent !== f.agent) return false;
    if (f.mission && row.mission !== f.mission && row.mission + " " + row.version !== f.mission) return false;
    if (!f.q) return true;
    var hay = [row.run, row.agent, row.mission, row.version, row.status, row.kind].join(" ").toLowerCase();
    return f.q.split(/\s+/).every(function (word) { return hay.indexOf(word) >= 0; });
  };

  var FILTERS = ["q", "kind", "agent", "mission"];
  var SORT_KEYS = ["date", "run", "agent", "mission", "status", "overall", "deterministic", "judge"];

  // The view as a fragment: only what differs from the unfiltered, newest-first ledger.
  Ledger.prototype.fragment = function () {
    var params = new URLSearchParams(), form = this.form;
    FILTERS.forEach(function (name) {
      var value = form.elements[name].value.trim();
      if (value) params.set(name, value);
    });
    if (this.sort.key !== "date" || this.sort.dir !== -1) {
      params.set("sort", this.sort.key);
      params.set("dir", this.sort.dir > 0 ? "asc" : "desc");
    }
    return params.toString();
  };

  Ledger.prototype.remember = function () {
    var fragment = this.fragment();
    var target = window.location.pathname + window.location.search + (fragment ? "#" + fragment : "");
    if (target === window.location.pathname + window.location.search + window.location.hash) return;
    try {
      window.history.replaceState(window.history.state, "", target);
    } catch (err) {  // some browsers refuse replaceState on file:// pages
      window.location.replace("#" + fragment);
    }
  };

  Ledger.prototype.setSort = function (key, dir) {
    this.sort = { key: key, dir: dir };
    this.table.querySelectorAll("th[data-sort]").forEach(function (th) {
      if (th.getAttribute("data-sort") === key) th.setAttribute("aria-sort", dir > 0 ? "ascending" : "descending");
      else th.removeAttribute("aria-sort");
    });
  };

  // Restore the view from the fragment (or, without one, from ?agent=… in the query).
  // Returns whether anything differs from the page as built.
  Ledger.prototype.restore = function () {
    var self = this, hash = window.location.hash.replace(/^#/, "");
    var params = new URLSearchParams(hash || window.location.search);
    var changed = false;
    FILTERS.forEach(function (name) {
      var control = self.form.elements[name], value = params.get(name) || "";
      if (value && control.tagName === "SELECT" && name === "mission" &&
          !Array.prototype.some.call(control.options, function (o) { return o.value === value; })) {
        control.appendChild(el("option", null, value));  // a "name version" from a mission page's link
      }
      control.value = value;
      if (control.value) changed = true;
    });
    var key = params.get("sort"), dir = params.get("dir") === "asc" ? 1 : -1;
    if (SORT_KEYS.indexOf(key) < 0) { key = "date"; dir = -1; }
    if (key !== "date" || dir !== -1) changed = true;
    this.setSort(key, dir);
    return changed;
  };

  Ledger.prototype.update = function () {
    var self = this;
    this.remember();
    this.load().then(function (rows) {
      var f = {
        q: self.form.elements.q.value.trim().toLowerCase(),
        kind: self.form.elements.kind.value,
        agent: self.form.elements.agent.value,
        mission: self.form.elements.mission.value
      };
      var key = self.sort.key, dir = self.sort.dir;
      var shown = rows.filter(function (row) { return self.matches(row, f); });
      shown.sort(function (a, b) {
        var x = self.value(a, key), y = self.value(b, key);
        if (x === y) return a.date < b.date ? 1 : (a.date > b.date ? -1 : 0);
        if (x === null || x === "") return 1;
        if (y === null || y === "") return -1;
        return (x < y ? -1 : 1) * dir;
      });
      self.render(shown.slice(0, 1000));
      var count = shown.length + " of " + rows.length + " runs";
      self.form.elements.count.value = shown.length > 1000 ? count + " (first 1000 shown)" : count;
      var pager = document.querySelector(".pager");
      if (pager) pager.hidden = true;
      var caption = self.table.querySelector("caption");
      if (caption) caption.textContent = "Runs matching the filters: " + count;
    }, function (err) {
      self.form.elements.count.value = err.message;
    });
  };

  Ledger.prototype.render = function (rows) {
    var self = this, p = this.prefix, frag = document.createDocumentFragment();
    rows.forEach(function (row) {
      var tr = el("tr", "k-row-" + row.kind + (row.older ? " older" : ""));
      tr.appendChild(el("td", "date", row.date ? row.date.slice(0, 10) + " " + row.date.slice(11, 16) : "—"));
      var run = el("td");
      run.appendChild(link(p + row.url, row.run.slice(0, 8), "mono"));
      tr.appendChild(run);
      var agent = el("td");
      var name = el("bdi", null, row.agent);
      if (row.agent_url) { var a = link(p + row.agent_url, ""); a.appendChild(name); agent.appendChild(a); } else { agent.appendChild(name); }
      tr.appendChild(agent);
      var mission = el("td");
      var m = el("bdi", null, row.mission);
      var holder = row.mission_url ? link(p + row.mission_url, "") : mission;
      holder.appendChild(m);
      holder.appendChild(document.createTextNode(" " + row.version));
      if (holder !== mission) mission.appendChild(holder);
      if (row.older) { mission.appendChild(document.createTextNode(" ")); mission.appendChild(el("span", "tag older", "older version")); }
      tr.appendChild(mission);
      var status = el("td", null, row.status + " ");
      status.appendChild(el("span", "kind k-" + row.kind, self.labels[row.kind] || row.kind));
      tr.appendChild(status);
      tr.appendChild(el("td", "num", row.overall_text));
      tr.appendChild(el("td", "num", row.deterministic_text));
      tr.appendChild(el("td", "num" + (row.judge_text === "No judge" ? " nojudge" : ""), row.judge_text));
      frag.appendChild(tr);
    });
    while (this.body.firstChild) this.body.removeChild(this.body.firstChild);
    this.body.appendChild(frag);
  };

  Ledger.prototype.start = function () {
    var self = this;
    this.form.hidden = false;
    this.form.addEventListener("submit", function (e) { e.preventDefault(); });
    this.form.addEventListener("input", function () { self.update(); });
    this.form.addEventListener("change", function () { self.update(); });
    this.table.querySelectorAll("th[data-sort]").forEach(function (th) {
      var button = el("button", null, th.textContent);
      button.type = "button";
      th.textContent = "";
      th.appendChild(button);
      button.addEventListener("click", function () {
        var key = th.getAttribute("data-sort");
        self.setSort(key, self.sort.key === key ? -self.sort.dir : (key === "date" ? -1 : 1));
        self.update();
      });
    });
    if (this.restore()) this.update();
    window.addEventListener("hashchange", function () {
      if (self.restore() || self.data) self.update();
    });
  };

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll(".plot-card").forEach(highlightChips);
    var form = document.getElementById("ledger-filters");
    var table = document.getElementById("ledger");
    if (form && table) new Ledger(form, table).start();
  });
})();
