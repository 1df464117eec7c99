"""Query times in the offline SQLite downloads, read as a user would (Python's sqlite3).

usage: python3 bench/sqlite-queries.py <file.sqlite> ...   (files gunzipped from dist/bundles/<release>/)

Prints p50 / p99 per question and its ratio to `SELECT 1` on the same connection, measured
in the same run: the floor of any query from Python. Not part of npm test.
"""
import sqlite3, statistics, sys, time


def bench(fn, n):
    ts = []
    for _ in range(n):
        t = time.perf_counter(); fn(); ts.append((time.perf_counter() - t) * 1e3)
    ts.sort()
    return statistics.median(ts), ts[max(0, int(len(ts) * 0.99) - 1)]


def row(name, stats, floor):
    print(f'  {name:34} p50 {stats[0]:8.3f} ms  p99 {stats[1]:8.3f} ms  {stats[0] / floor:7.1f} x SELECT 1')


def quoted(text):
    words = text.split()
    return {'words': ' '.join(f'"{w}"' for w in words), 'prefixes': ' '.join(f'"{w}"' + ('*' if len(w) >= 3 else '') for w in words)}


for file in sys.argv[1:]:
    t = time.perf_counter()
    db = sqlite3.connect(f'file:{file}?mode=ro', uri=True)
    db.execute('SELECT count(*) FROM almanac_meta').fetchone()
    print(f'{file}: open {(time.perf_counter() - t) * 1e3:.2f} ms')
    floor = bench(lambda: db.execute('SELECT 1').fetchone(), 2000)[0]
    row('SELECT 1 (baseline)', (floor, floor), floor)
    tables = {r[0] for r in db.execute('SELECT table_name FROM almanac_datasets')}
    queries = dict(db.execute('SELECT id, search_query FROM almanac_datasets'))
    if 'geography_places' in tables:
        ids = iter([r[0] for r in db.execute('SELECT id FROM geography_places ORDER BY random() LIMIT 1000')])
        row('a place by id', bench(lambda: db.execute('SELECT record FROM geography_places WHERE id = ?', (next(ids),)).fetchone(), 1000), floor)
        for text in ['springfield', 'new york', 'san']:
            p = quoted(text)
            row(f'places search {text!r}', bench(lambda: db.execute(queries['geography/places'], p).fetchall(), 50), floor)
    if 'holidays' in tables:
        # Three indexed columns: without statistics (ANALYZE) SQLite took the type index.
        row("holidays by country, year, type", bench(lambda: db.execute(
            "SELECT record FROM holidays WHERE country = 'DE' AND year = 2026 AND type = 'public'").fetchall(), 200), floor)
    if 'aviation' in tables:
        row('runways of 10,000 ft or more', bench(lambda: db.execute('SELECT count(*) FROM aviation WHERE length_ft >= 10000').fetchone(), 50), floor)
    if 'elements' in tables:
        row("an element by alias 'iron'", bench(lambda: db.execute("SELECT record FROM elements WHERE ordinal IN (SELECT ordinal FROM elements__aliases WHERE alias = 'iron')").fetchone(), 1000), floor)
    if db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'verses'").fetchone()[0]:
        refs = iter([r[0] for r in db.execute("SELECT reference FROM verses WHERE translation = 'kjv' ORDER BY random() LIMIT 1000")])
        row('a KJV verse by reference', bench(lambda: db.execute("SELECT text FROM verses WHERE translation = 'kjv' AND reference = ?", (next(refs),)).fetchone(), 1000), floor)
        for text in ['only begotten', 'love', 'jerusalem']:
            match = quoted(text)['words']
            row(f'KJV search {text!r}', bench(lambda: db.execute(
                "SELECT v.reference FROM verses_fts f JOIN verses v ON v.rowid = f.rowid WHERE verses_fts MATCH ? AND v.translation = 'kjv' "
                'ORDER BY bm25(verses_fts) LIMIT 20', (match,)).fetchall(), 50), floor)
