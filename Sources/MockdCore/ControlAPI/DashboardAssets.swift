/// The dashboard's assets (`Dashboard`), kept as source so that the static binary carries them.
enum DashboardAssets {
    /// `/__mockd/ui`: the page; its script and style are separate assets (no inline script or style).
    static let page = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>mockd dashboard</title>
        <link rel="icon" href="data:,">
        <link rel="stylesheet" href="/__mockd/ui/app.css">
        <script src="/__mockd/ui/app.js" defer></script>
        </head>
        <body>
        <header id="top">
          <h1>mockd</h1>
          <span id="daemon"></span>
          <span id="live" class="badge">offline</span>
        </header>
        <form id="token-form" hidden>
          <label for="token-input">This daemon needs its control token (--control-token):</label>
          <input id="token-input" type="password" autocomplete="off" required>
          <button id="token-save" type="submit">Use token</button>
          <span id="token-error" class="error"></span>
        </form>
        <main id="app">
          <aside id="side">
            <h2>Sessions</h2>
            <table id="sessions">
              <thead><tr><th>Session</th><th>Scenario</th><th>Requests</th><th>Last seen</th></tr></thead>
              <tbody></tbody>
            </table>
            <h2>Overall coverage</h2>
            <div id="overall"></div>
          </aside>
          <section id="session" hidden>
            <div id="session-bar">
              <h2 id="session-title"></h2>
              <label for="scenario-select">Scenario</label>
              <select id="scenario-select"></select>
              <button id="scenario-switch" type="button">Switch</button>
              <button id="reset" type="button">Reset session</button>
              <button id="har" type="button">Download HAR</button>
              <a id="har-link" hidden></a>
              <span id="status" role="status"></span>
            </div>
            <nav id="tabs">
              <button type="button" data-tab="journal" class="active">Live journal</button>
              <button type="button" data-tab="misses">Misses</button>
              <button type="button" data-tab="coverage">Coverage</button>
              <button type="button" data-tab="websockets">WebSockets</button>
            </nav>
            <div id="view-journal" class="view">
              <div id="search-bar"><input id="search" type="search" autocomplete="off"
                placeholder="Filter rows: method, target, status, stub, fault" aria-label="Filter the journal"></div>
              <div id="filter" hidden><span id="filter-text"></span> <button id="filter-clear" type="button">Show all</button></div>
              <table id="journal">
                <thead><tr><th>#</th><th>Time</th><th>Method</th><th>Target</th><th>Status</th><th>Answered by</th>
                  <th>Latency</th><th>Fault</th></tr></thead>
                <tbody></tbody>
              </table>
              <div id="detail" hidden></div>
            </div>
            <div id="view-misses" class="view" hidden></div>
            <div id="view-coverage" class="view" hidden></div>
            <div id="view-websockets" class="view" hidden></div>
          </section>
          <section id="empty"><p>Pick a session on the left.</p></section>
        </main>
        </body>
        </html>
        """#

    /// `/__mockd/ui/app.css`.
    static let style = #"""
        * { box-sizing: border-box; }
        [hidden] { display: none !important; }
        body { margin: 0; display: flex; flex-direction: column; height: 100vh; font: 13px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d2330; background: #f5f6f8; }
        header#top { display: flex; align-items: center; gap: 12px; padding: 8px 16px; background: #1d2330; color: #fff; }
        header#top h1 { font-size: 16px; margin: 0; }
        #daemon { color: #b8c0d0; }
        .badge { padding: 1px 8px; border-radius: 9px; background: #6b7385; color: #fff; font-size: 11px; }
        .badge.on { background: #1f9d55; }
        #token-form { padding: 16px; background: #fff3cd; display: flex; gap: 8px; align-items: center; }
        main#app { display: flex; flex: 1; min-height: 0; }
        aside#side { width: 400px; flex: none; padding: 12px; border-right: 1px solid #d8dce3; background: #fff; overflow: auto; overflow-x: hidden; }
        aside td { overflow-wrap: break-word; }
        section#session, section#empty { flex: 1; padding: 12px 16px; overflow: auto; min-width: 0; }
        h2 { font-size: 14px; margin: 8px 0; }
        h3 { font-size: 13px; margin: 12px 0 6px; }
        table { border-collapse: collapse; width: 100%; }
        th, td { text-align: left; padding: 3px 6px; border-bottom: 1px solid #e4e7ec; vertical-align: top; }
        th, .nowrap { white-space: nowrap; }
        td.stub { overflow-wrap: anywhere; min-width: 120px; }
        th { background: #eef0f4; font-weight: 600; }
        td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
        tbody tr { cursor: pointer; }
        tbody tr:hover { background: #eef4ff; }
        tr.selected { background: #dbe7ff; }
        tr.miss td { color: #a31515; }
        td.target { font-family: ui-monospace, Menlo, Consolas, monospace; overflow-wrap: anywhere; min-width: 240px; }
        td.target .frame { display: block; color: #6b7385; }
        a.cause { margin-left: 6px; font-size: 12px; }
        td.target .row-note { display: block; color: #8a5a00; font-size: 12px; }
        td.in a.cause, td.out a.cause { color: #fff; }
        p.note { background: #fff8e1; border-left: 3px solid #e0a800; padding: 4px 8px; }
        aside li { overflow-wrap: anywhere; }
        #session-bar { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
        #session-bar h2 { margin-right: 12px; }
        #status { color: #1f6f3f; }
        #status.error, .error { color: #a31515; }
        nav#tabs { margin: 10px 0; border-bottom: 1px solid #d8dce3; }
        nav#tabs button { border: 0; background: none; padding: 6px 12px; cursor: pointer; font: inherit; }
        nav#tabs button.active { border-bottom: 2px solid #2f6fed; font-weight: 600; }
        button { font: inherit; padding: 3px 10px; }
        #detail { margin-top: 12px; background: #fff; border: 1px solid #d8dce3; padding: 8px 12px; }
        .columns { display: flex; gap: 16px; }
        .columns > div { flex: 1; min-width: 0; }
        pre { background: #f0f2f5; padding: 8px; overflow: auto; max-height: 420px; margin: 4px 0;
          font: 12px/1.35 ui-monospace, Menlo, Consolas, monospace; white-space: pre-wrap; word-break: break-all; }
        img.preview { max-width: 320px; max-height: 320px; border: 1px solid #d8dce3; background: #fff; }
        table.headers td:first-child { font-weight: 600; white-space: nowrap; }
        table.side-by-side td { font-family: ui-monospace, Menlo, Consolas, monospace; word-break: break-all; }
        table.side-by-side td.expected { background: #e6f4ea; }
        table.side-by-side td.actual { background: #fdecea; }
        .miss-card { background: #fff; border: 1px solid #d8dce3; padding: 8px 12px; margin-bottom: 10px; }
        .muted { color: #6b7385; }
        .timeline { position: relative; height: 28px; background: #eef0f4; margin: 6px 0; border-radius: 4px; }
        .timeline .tick { position: absolute; top: 4px; width: 8px; height: 20px; margin-left: -4px; border-radius: 3px; }
        .tick.in, td.in { background: #2f6fed; }
        .tick.out, td.out { background: #1f9d55; }
        td.in, td.out { color: #fff; text-align: center; white-space: nowrap; }
        ul.plain { margin: 4px 0; padding-left: 18px; }
        table.side-by-side td:first-child { white-space: nowrap; word-break: normal; }
        #search-bar { margin-bottom: 6px; }
        #search { width: 420px; max-width: 100%; padding: 3px 6px; font: inherit; }
        """#
}
