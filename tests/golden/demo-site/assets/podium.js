/* podium: progressive enhancement only. Every page is complete without this file.
   - mission cards: an agent chip highlights that agent's points on hover, focus and press;
   - the ledger: sorting and filtering over every run. Its data are scripts (they load from file://
     too): api/results/ledger.js indexes the parts, one per agent and mission; a view loads only the
     parts it needs (an agent's, a mission's, those holding a kind), and one that would need more
     than the form's data-limit runs without an agent or a mission chosen waits for "Load every run". Matches are
     drawn PAGE rows at a time. All text goes in via textContent. The filters, the sort and the
     page live in the URL fragment (runs/index.html#agent=kestrel&kind=timed_out, plus
     sort=overall&dir=asc and page=2 when not the default), restored on load and kept up to date
     with history.replaceState, so a view is a link. `agent` is the agent's slug (unique: two agents
     of one name are two views), or a name that exactly one agent has (links made before slugs);
     `mission` matches a mission name or "name version"; ?agent=… in the query is still read when
     there is no fragment. */
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

  // The ledger's data arrive as scripts (they load from file:// where fetch() does not): ledger.js is
  // the index of every part (one per agent and mission, api/results/ledger/...), each part a script of
  // its own. They hand their data to these two callbacks.
  var loading = { index: null, parts: {} };
  window.podiumLedger = {
    index: function (data) { if (loading.index) loading.index.resolve(data); },
    part: function (data) { var p = loading.parts[data.script]; if (p) p.resolve(data); }
  };

  function loadScript(src, slot) {
    return new Promise(function (resolve, reject) {
      slot.resolve = resolve;
      var script = document.createElement("script");
      script.src = src;
      script.onerror = function () { reject(new Error("ledger data could not be loaded")); };
      document.head.appendChild(script);
    });
  }

  var PAGE = 100;  // rows drawn at a time

  function Ledger(form, table) {
    this.form = form;
    this.table = table;
    this.body = table.tBodies[0];
    this.src = form.getAttribute("data-ledger");
    this.prefix = this.src.replace(/api\/results\/ledger\.js$/, "");
    this.index = null;
    this.parts = {};  // script path -> its rows, as objects
    this.sort = { key: "date", dir: -1 };
    this.page = 0;
    this.everything = false;  // the reader asked to load every run
    this.pager = document.getElementById("ledger-pager");
    this.limit = parseInt(form.getAttribute("data-limit"), 10) || 20000;  // more runs than this: only when asked
    this.runPage = form.getAttribute("data-run-page");  // a run's own page, "{run}" for its id
    this.noJudge = form.getAttribute("data-no-judge");  // the judge cell's text for a run whose judge never ran
    this.labels = {};
    var self = this;
    Array.prototype.forEach.call(form.elements.kind.options, function (o) { self.labels[o.value] = o.textContent; });
  }

  Ledger.prototype.loadIndex = function () {
    var self = this;
    if (!loading.index) {
      loading.index = {};
      loading.index.promise = loadScript(this.src, loading.index).then(function (data) {
        self.index = data.parts.map(function (p) {
          var part = {};
          data.columns.forEach(function (name, i) { part[name] = p[i]; });
          return part;
        });
        self.total = data.runs;
        return self.index;
      });
    }
    return loading.index.promise;
  };

  Ledger.prototype.loadPart = function (part) {
    var self = this, path = part.script;
    if (self.parts[path]) return Promise.resolve(self.parts[path]);
    if (!loading.parts[path]) {
      loading.parts[path] = {};
      loading.parts[path].promise = loadScript(this.prefix + path, loading.parts[path]).then(function (data) {
        self.parts[path] = data.rows.map(function (row) {
          var item = { agent: data.agent, slug: data.slug, agent_url: data.agent_url, mission: data.mission };
          data.columns.forEach(function (name, i) { item[name] = row[i]; });
          var version = data.versions[item.version] || ["", false];
          item.mission_url = version[0];
          item.older = version[1];
          item.url = item.url === null ? self.runPage.replace("{run}", item.run) : data.pages[item.url] + "#run-" + item.run;
          return item;
        });
        return self.parts[path];
      });
    }
    return loading.parts[path].promise;
  };

  // The parts a view needs: an agent's, a mission's, those holding a kind; every part otherwise.
  Ledger.prototype.needed = function (f) {
    var mission = f.mission;
    return this.index.filter(function (p) {
      if (f.agent && p.slug !== f.agent) return false;
      if (mission && p.mission !== mission && mission.indexOf(p.mission + " ") !== 0) return false;
      if (f.kind && !p.kinds[f.kind]) return false;
      return true;
    });
  };

  Ledger.prototype.value = function (row, key) {
    if (key === "mission") return row.mission + " " + row.version;
    if (key === "agent") return row.agent.toLowerCase();
    return row[key];
  };

  Ledger.prototype.matches = function (row, f) {
    if (f.kind && row.kind !== f.kind) return false;
    if (f.agent && row.slug !== f.agent) return false;
    if (f.mission && row.mission !== f.mission && row.mission + " " + row.version !== f.mission) return false;
    if (!f.q) return true;
    var hay = [row.run, row.agent, row.mission, row.version, row.status, row.kind].join(" ").toLowerCase();
    return f.q.split(/\s+/).every(function (word) { return hay.indexOf(word) >= 0; });
  };

  var FILTERS = ["q", "kind", "agent", "mission"];
  var SORT_KEYS = ["date", "run", "agent", "mission", "status", "overall", "deterministic", "judge", "tokens", "duration"];

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
    if (this.page > 0) params.set("page", String(this.page + 1));
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
      var options = control.tagName === "SELECT" ? Array.prototype.slice.call(control.options) : null;
      if (value && options && !options.some(function (o) { return o.value === value; })) {
        if (name === "agent") {  // a link by the agent's name (made before slugs), when one agent has it
          var named = options.filter(function (o) { return o.textContent === value; });
          if (named.length === 1) value = named[0].value;
        } else if (name === "mission") {
          control.appendChild(el("option", null, value));  // a "name version" from a mission page's link
        }
      }
      control.value = value;
      if (control.value) changed = true;
    });
    var key = params.get("sort"), dir = params.get("dir") === "asc" ? 1 : -1;
    if (SORT_KEYS.indexOf(key) < 0) { key = "date"; dir = -1; }
    if (key !== "date" || dir !== -1) changed = true;
    this.setSort(key, dir);
    var page = parseInt(params.get("page") || "1", 10);
    this.page = page > 1 ? page - 1 : 0;
    if (this.page) changed = true;
    return changed;
  };

  Ledger.prototype.filters = function () {
    return {
      q: this.form.elements.q.value.trim().toLowerCase(),
      kind: this.form.elements.kind.value,
      agent: this.form.elements.agent.value,
      mission: this.form.elements.mission.value
    };
  };

  Ledger.prototype.update = function (keepPage) {
    var self = this, f = this.filters();
    if (!keepPage) this.page = 0;
    this.remember();
    this.loadIndex().then(function () {
      var parts = self.needed(f);
      var runs = parts.reduce(function (sum, p) { return sum + p.runs; }, 0);
      var loadButton = self.form.querySelector(".ledger-load");
      if (!f.agent && !f.mission && runs > self.limit && !self.everything) {
        loadButton.hidden = false;
        self.form.elements.count.value = "This view needs " + runs + " runs (" + parts.length +
          " parts): choose an agent or a mission, or load them all.";
        return null;
      }
      loadButton.hidden = true;
      return Promise.all(parts.map(function (p) { return self.loadPart(p); }));
    }).then(function (loaded) {
      if (!loaded) return;
      var key = self.sort.key, dir = self.sort.dir, shown = [];
      loaded.forEach(function (rows) {
        rows.forEach(function (row) { if (self.matches(row, f)) shown.push(row); });
      });
      shown.sort(function (a, b) {
        var x = self.value(a, key), y = self.value(b, key);
        if (x === y) return a.date < b.date ? 1 : (a.date > b.date ? -1 : (a.run < b.run ? -1 : 1));
        if (x === null || x === "") return 1;
        if (y === null || y === "") return -1;
        return (x < y ? -1 : 1) * dir;
      });
      var pages = Math.max(1, Math.ceil(shown.length / PAGE));
      self.page = Math.min(self.page, pages - 1);
      var first = self.page * PAGE;
      self.render(shown.slice(first, first + PAGE));
      var count = shown.length + " of " + self.total + " runs";
      self.form.elements.count.value = count;
      var caption = self.table.querySelector("caption");
      if (caption) caption.textContent = "Runs matching the filters: " + count;
      if (self.pager) {
        self.pager.hidden = pages < 2;
        self.pager.querySelector("[name=newer]").disabled = self.page === 0;
        self.pager.querySelector("[name=older]").disabled = self.page >= pages - 1;
        self.pager.querySelector("output").value = shown.length ?
          (first + 1) + "–" + Math.min(first + PAGE, shown.length) + " of " + shown.length : "";
      }
    }).catch(function (err) {
      self.form.elements.count.value = err.message;
    });
  };

  Ledger.prototype.render = function (rows) {
    var self = this, p = this.prefix, frag = document.createDocumentFragment();
    rows.forEach(function (row) {
      var tr = el("tr", "k-row-" + row.kind + (row.older ? " older" : ""));
      tr.appendChild(el("td", "date", row.date ? row.date.slice(0, 10) + " " + row.date.slice(11, 16) : "—"));
      var run = el("td", "run");
      run.appendChild(link(p + row.url, row.run.slice(0, 8), "mono"));
      tr.appendChild(run);
      var agent = el("td", "agent");
      var name = el("bdi", null, row.agent);
      if (row.agent_url) { var a = link(p + row.agent_url, ""); a.appendChild(name); agent.appendChild(a); } else { agent.appendChild(name); }
      tr.appendChild(agent);
      var mission = el("td", "mission");
      var m = el("bdi", null, row.mission);
      var holder = row.mission_url ? link(p + row.mission_url, "") : mission;
      holder.appendChild(m);
      holder.appendChild(document.createTextNode(" " + row.version));
      if (holder !== mission) mission.appendChild(holder);
      if (row.older) { mission.appendChild(document.createTextNode(" ")); mission.appendChild(el("span", "tag older", "older version")); }
      tr.appendChild(mission);
      var status = el("td", "status", row.status + " ");
      status.appendChild(el("span", "kind k-" + row.kind, self.labels[row.kind] || row.kind));
      tr.appendChild(status);
      tr.appendChild(el("td", "num overall", row.overall_text));
      tr.appendChild(el("td", "num checks-half", row.deterministic_text));
      tr.appendChild(el("td", "num judge-half" + (row.judge_text === self.noJudge ? " nojudge" : ""), row.judge_text));
      tr.appendChild(el("td", "num tokens", row.tokens_text));
      tr.appendChild(el("td", "num time", row.duration_text));
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
    this.form.elements.load.addEventListener("click", function () { self.everything = true; self.update(true); });
    if (this.pager) {
      this.pager.querySelector("[name=newer]").addEventListener("click", function () {
        self.page = Math.max(0, self.page - 1); self.update(true);
      });
      this.pager.querySelector("[name=older]").addEventListener("click", function () {
        self.page += 1; self.update(true);
      });
    }
    if (this.restore()) this.update(true);
    window.addEventListener("hashchange", function () {
      if (self.restore() || self.index) self.update(true);
    });
  };

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll(".plot-card").forEach(highlightChips);
    var form = document.getElementById("ledger-filters");
    var table = document.getElementById("ledger");
    if (form && table) new Ledger(form, table).start();
  });
})();
