/* crival: a contest-style Trax engine in C, an opponent for bench/strength.py.
 *
 * It shares no code with pbm: the rules are written again here (and checked
 * against pbm.trax by tests/test_bench_crival.py) so that a search runs at
 * C speed.  bench/crival.py compiles this file (gcc -O2) into a cache folder
 * and talks to it over a pipe, one request a line on stdin, one answer on
 * stdout; coordinates are pbm's *area coordinates* (x right, y down, from
 * the first tile of the game), tiles are pbm's white masks (5 10 9 6 3 12).
 *
 *   go BUDGET SEED PLY N x1 y1 t1 ... xN yN tN
 *       -> move X Y TILE DEPTH NODES SCORE CPU_SECONDS
 *   legal PLY N x1 y1 t1 ...
 *       -> one line per legal turn, in reading order, then "end":
 *          X Y TILE QUICK SAMEKEY WINNER REASON COUNT px py pt ...  (the
 *          tiles it places, the chosen one first; WINNER -1 none, 0 white,
 *          1 black; REASON 0 none, 1 loop, 2 line; QUICK the winner the
 *          search's shortcut for a turn that forces nothing finds, -2 when
 *          the turn forces; SAMEKEY 1 when its key is the played turn's)
 *   bench SECONDS PLY N tiles...  -> nodes DEPTH NODES SECONDS (a search, for nodes/s)
 *
 * The rules (those of pbm/trax/rules.py for the game type "trax"): a tile
 * must match every track that enters its cell; every empty cell that then
 * has two entries of one colour is filled at once (forced), and so on; a
 * turn that brings three entries of one colour into an empty cell is
 * illegal.  A loop is a track closing on itself; a line is a track whose two
 * ends lie on opposite outermost edges of a formation at least 8 wide (or
 * tall).  A turn completing both colours is won by its mover.
 *
 * The board: fixed arrays (SZ x SZ cells, the formation kept far from the
 * rim; the area is shifted when it comes near) of tiles and of the entry
 * keys of empty cells, and, for every open track end (an edge id), the
 * edge of the track's other end, so that a join or a loop is found without
 * walking a track.  Every write goes to an undo log: taking a turn back
 * replays the log backwards.
 *
 * The search: negamax alpha-beta with principal-variation windows and
 * iterative deepening in CPU time; a Zobrist-keyed transposition table
 * (depth-preferred with an always-replace slot); killer and history move
 * ordering; every node plays each of its turns once (move generation,
 * deduplication by the resulting position and immediate-win detection in
 * one pass), so a win in one is always seen; the other side's winning turns
 * are threats: only the moves after which no threat cell still wins are
 * searched (forced blocks, extended by a ply), and at the horizon a side
 * under threat searches its blocks (quiescence) before the position is
 * judged.  At the root a threat-space search (every move a threat, every
 * answer forced) looks for a win by threats alone.  The evaluation reads
 * the open tracks: attacks (ends two steps apart), pairs of attacks,
 * nearer and farther shapes, line progress.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SZ 512
#define CELLS (SZ * SZ)
#define MARGIN 150
#define MAXPLY 128
#define MAXCHAIN 4096
#define STACKMOVES (1 << 20)
#define LOGSIZE (1 << 22)
#define TTBITS 20
#define WIN 1000000
#define WON (WIN - 1000)
#define INF (WIN + 1)
#define QMAX 10

enum { N, E, S, W };
static const int DELTA[4] = {-SZ, 1, SZ, -1};
static const int OPP[4] = {S, W, N, E};
static const int EDGE_OFF[4] = {0, 3, 2 * SZ, 1};
static const int TILES[6] = {5, 10, 9, 6, 3, 12};

static uint8_t T[CELLS];     /* tile (white mask) or 0 */
static uint8_t K[CELLS];     /* entry key of an empty cell: white dirs | black dirs << 4 */
static int32_t EP[2 * CELLS]; /* open end edge -> the track's other open end */
static int minx, maxx, miny, maxy, ntiles, ply;
static uint64_t H;
static int OX, OY; /* area (x, y) is cell (y + OY) * SZ + x + OX */

static int FORCE[256];
static int FIT[256][4];
static int NFIT[256];
static uint8_t CONTRIB[16][4];
/* DIRS[t][colour]: the two directions of that colour's track in tile t. */
static int DIRS[16][2][2];

/* the undo log: (array, index, old value) */
typedef struct { int32_t where; int32_t old; } Undo;
static Undo ulog[LOGSIZE];
static int ulen;

static inline void setT(int c, int v) { ulog[ulen].where = c; ulog[ulen].old = T[c]; ulen++; T[c] = (uint8_t)v; }
static inline void setK(int c, int v) { ulog[ulen].where = CELLS + c; ulog[ulen].old = K[c]; ulen++; K[c] = (uint8_t)v; }
static inline void setE(int e, int v) { ulog[ulen].where = 2 * CELLS + e; ulog[ulen].old = EP[e]; ulen++; EP[e] = v; }

static inline uint64_t mix(uint64_t z) {
    z += 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
#define SIDE_KEY 0x5bd1e9955bd1e995ULL
static inline uint64_t zob(int c, int t) { return mix((uint64_t)c << 4 | (uint64_t)t); }

static void tables(void) {
    for (int key = 0; key < 256; key++) {
        int wm = key & 15, bm = key >> 4;
        int nw = __builtin_popcount(wm), nb = __builtin_popcount(bm);
        if ((wm & bm) || nw > 2 || nb > 2) FORCE[key] = -1;
        else if (nw == 2) FORCE[key] = wm;
        else if (nb == 2) FORCE[key] = 15 ^ bm;
        else FORCE[key] = 0;
        NFIT[key] = 0;
        if (!(wm & bm))
            for (int i = 0; i < 6; i++)
                if ((TILES[i] & (wm | bm)) == wm) FIT[key][NFIT[key]++] = TILES[i];
    }
    for (int t = 0; t < 16; t++)
        for (int colour = 0; colour < 2; colour++) {
            int m = colour ? 15 ^ t : t, k = 0;
            DIRS[t][colour][0] = DIRS[t][colour][1] = 0;
            for (int d = 0; d < 4; d++)
                if ((m >> d & 1) && k < 2) DIRS[t][colour][k++] = d;
        }
    for (int t = 0; t < 16; t++)
        for (int d = 0; d < 4; d++) CONTRIB[t][d] = (t >> d & 1) ? (uint8_t)(1 << OPP[d]) : (uint8_t)(16 << OPP[d]);
}

static double cpu(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------------ */
/* placing tiles */

typedef struct { int fa, fb, colour; } Link;
static Link links[2 * MAXCHAIN + 8];
static int nlinks;
static int placed[MAXCHAIN + 8];
static int nplaced;

/* Put one tile down; returns the colour bits of the loops it closed. */
static inline int place(int c, int t) {
    int occ = 0, loops = 0;
    setT(c, t);
    H ^= zob(c, t);
    for (int d = 0; d < 4; d++) {
        int n = c + DELTA[d];
        if (T[n]) occ |= 1 << d;
        else setK(n, K[n] | CONTRIB[t][d]);
    }
    int base = 2 * c;
    for (int colour = 0; colour < 2; colour++) {
        int a = DIRS[t][colour][0], b = DIRS[t][colour][1];
        int ea = base + EDGE_OFF[a], eb = base + EDGE_OFF[b];
        int fa = (occ >> a & 1) ? EP[ea] : ea;
        int fb = (occ >> b & 1) ? EP[eb] : eb;
        if ((occ >> a & 1) && (occ >> b & 1) && fa == eb) { loops |= 1 << colour; continue; }
        setE(fa, fb);
        setE(fb, fa);
        if (nlinks < 2 * MAXCHAIN) { links[nlinks].fa = fa; links[nlinks].fb = fb; links[nlinks].colour = colour; nlinks++; }
    }
    return loops;
}

static inline int open_edge(int e) {
    int c = e >> 1, o = (e & 1) ? c - 1 : c - SZ;
    return (T[c] != 0) != (T[o] != 0);
}
static inline int end_cell(int e) {
    int c = e >> 1, o = (e & 1) ? c - 1 : c - SZ;
    return T[c] ? o : c;
}

static int spans(int ea, int eb) {
    if ((ea & 1) != (eb & 1)) return 0;
    int ca = ea >> 1, cb = eb >> 1;
    if (ea & 1) {
        if (maxx - minx + 1 < 8) return 0;
        int xa = ca % SZ, xb = cb % SZ, lo = minx, hi = maxx + 1;
        return (xa == lo && xb == hi) || (xa == hi && xb == lo);
    }
    if (maxy - miny + 1 < 8) return 0;
    int ya = ca / SZ, yb = cb / SZ, lo = miny, hi = maxy + 1;
    return (ya == lo && yb == hi) || (ya == hi && yb == lo);
}

typedef struct { int ulen, minx, maxx, miny, maxy, ntiles; uint64_t H; } Frame;
static Frame frames[MAXPLY * 4 + 64];
static int nframes;
static int last_wins;  /* colour bits the last make completed */
static int last_loops; /* ... by a loop */

static void undo(void) {
    Frame *f = &frames[--nframes];
    while (ulen > f->ulen) {
        Undo *u = &ulog[--ulen];
        if (u->where < CELLS) T[u->where] = (uint8_t)u->old;
        else if (u->where < 2 * CELLS) K[u->where - CELLS] = (uint8_t)u->old;
        else EP[u->where - 2 * CELLS] = u->old;
    }
    minx = f->minx; maxx = f->maxx; miny = f->miny; maxy = f->maxy; ntiles = f->ntiles; H = f->H;
    ply--;
}

/* Play a turn: the tile at c and all it forces.  Returns -1 for an illegal
 * turn (the board unchanged), else the winner: 0 none, 1 white, 2 black
 * (one more than the colour); last_wins holds the completed colours. */
static int make(int c, int t) {
    Frame *f = &frames[nframes++];
    f->ulen = ulen; f->minx = minx; f->maxx = maxx; f->miny = miny; f->maxy = maxy; f->ntiles = ntiles; f->H = H;
    ply++;
    int x = c % SZ, y = c / SZ;
    if (!ntiles) { minx = maxx = x; miny = maxy = y; }
    else {
        if (x < minx) minx = x; else if (x > maxx) maxx = x;
        if (y < miny) miny = y; else if (y > maxy) maxy = y;
    }
    nlinks = 0;
    nplaced = 0;
    int loops = place(c, t);
    placed[nplaced++] = c;
    int stack[MAXCHAIN + 8], sp = 0;
    stack[sp++] = c;
    while (sp) {
        int p = stack[--sp];
        for (int d = 0; d < 4; d++) {
            int n = p + DELTA[d];
            if (T[n]) continue;
            int fo = FORCE[K[n]];
            if (fo) {
                if (fo < 0 || nplaced >= MAXCHAIN) { undo(); return -1; }
                loops |= place(n, fo);
                placed[nplaced++] = n;
                stack[sp++] = n;
            }
        }
    }
    ntiles += nplaced;
    H ^= SIDE_KEY;
    int wins = loops;
    if (maxx - minx >= 7 || maxy - miny >= 7) {
        for (int i = 0; i < nlinks; i++) {
            Link *l = &links[i];
            if (wins >> l->colour & 1) continue;
            if (!open_edge(l->fa) || !open_edge(l->fb) || EP[l->fa] != l->fb) continue;
            if (spans(l->fa, l->fb)) wins |= 1 << l->colour;
        }
    }
    last_wins = wins;
    last_loops = loops;
    if (!wins) return 0;
    int mover = (ply - 1) & 1;
    return (wins >> mover & 1) ? mover + 1 : 2 - mover;
}

/* A turn that forces nothing, judged without playing it: -2 when the tile
 * at c forces a neighbour (play it with make), else what make would return
 * (0, or the winner plus one: such a turn can complete only a line) with
 * *key the position's key after it. */
static int quick(int c, int t, uint64_t *key) {
    int occ = 0;
    for (int d = 0; d < 4; d++) {
        int n = c + DELTA[d];
        if (T[n]) occ |= 1 << d;
        else if (FORCE[K[n] | CONTRIB[t][d]]) return -2;
    }
    *key = H ^ zob(c, t) ^ SIDE_KEY;
    int x = c % SZ, y = c / SZ;
    int ox = minx, oX = maxx, oy = miny, oY = maxy;
    if (x < minx) minx = x; else if (x > maxx) maxx = x;
    if (y < miny) miny = y; else if (y > maxy) maxy = y;
    int wins = 0;
    if (maxx - minx >= 7 || maxy - miny >= 7) {
        int base = 2 * c;
        T[c] = (uint8_t)t; /* for spans' view of the bounding box only */
        for (int colour = 0; colour < 2; colour++) {
            int a = DIRS[t][colour][0], b = DIRS[t][colour][1];
            int ea = base + EDGE_OFF[a], eb = base + EDGE_OFF[b];
            int fa = (occ >> a & 1) ? EP[ea] : ea;
            int fb = (occ >> b & 1) ? EP[eb] : eb;
            if (spans(fa, fb)) wins |= 1 << colour;
        }
        T[c] = 0;
    }
    minx = ox; maxx = oX; miny = oy; maxy = oY;
    last_wins = wins;
    last_loops = 0;
    if (!wins) return 0;
    int mover = ply & 1;
    return (wins >> mover & 1) ? mover + 1 : 2 - mover;
}

/* ------------------------------------------------------------------ */
/* setting a position up */

static void setup(int p, int n, const int *xs, const int *ys, const int *ts) {
    int lo_x = 0, hi_x = 0, lo_y = 0, hi_y = 0;
    for (int i = 0; i < n; i++) {
        if (i == 0 || xs[i] < lo_x) lo_x = xs[i];
        if (i == 0 || xs[i] > hi_x) hi_x = xs[i];
        if (i == 0 || ys[i] < lo_y) lo_y = ys[i];
        if (i == 0 || ys[i] > hi_y) hi_y = ys[i];
    }
    if (hi_x - lo_x > SZ - 2 * MARGIN || hi_y - lo_y > SZ - 2 * MARGIN) {
        fprintf(stderr, "crival: the formation is too large\n");
        exit(2);
    }
    extern void tt_clear(void);
    if (lo_x + OX < MARGIN || hi_x + OX >= SZ - MARGIN || lo_y + OY < MARGIN || hi_y + OY >= SZ - MARGIN) {
        OX = SZ / 2 - (lo_x + hi_x) / 2;
        OY = SZ / 2 - (lo_y + hi_y) / 2;
        tt_clear();
    }
    memset(T, 0, sizeof T);
    memset(K, 0, sizeof K);
    ulen = 0; nframes = 0; H = 0; ntiles = 0;
    minx = maxx = SZ / 2; miny = maxy = SZ / 2;
    for (int i = 0; i < n; i++) {
        int c = (ys[i] + OY) * SZ + xs[i] + OX;
        int x = c % SZ, y = c / SZ;
        if (!ntiles) { minx = maxx = x; miny = maxy = y; }
        if (x < minx) minx = x;
        if (x > maxx) maxx = x;
        if (y < miny) miny = y;
        if (y > maxy) maxy = y;
        nlinks = 0;
        place(c, ts[i]);
        ulen = 0;
        ntiles++;
    }
    ply = p;
    if (p & 1) H ^= SIDE_KEY;
}

/* ------------------------------------------------------------------ */
/* the transposition table */

typedef struct { uint64_t key; int32_t score; uint32_t move; int16_t depth; uint8_t flag, age; } Entry;
static Entry *tt;
static uint8_t age;
enum { EXACT, LOWER, UPPER };

void tt_clear(void) { if (tt) memset(tt, 0, sizeof(Entry) << TTBITS); }

static Entry *tt_probe(uint64_t key) {
    Entry *e = &tt[(key & ((1u << TTBITS) - 1)) & ~1u];
    if (e[0].key == key) return &e[0];
    if (e[1].key == key) return &e[1];
    return NULL;
}

static void tt_store(uint64_t key, int depth, int flag, int score, uint32_t move, int p) {
    Entry *e = &tt[(key & ((1u << TTBITS) - 1)) & ~1u];
    if (score >= WON) score += p; else if (score <= -WON) score -= p;
    Entry *slot = (e[0].key == key || e[0].depth <= depth || e[0].age != age) ? &e[0] : &e[1];
    if (slot == &e[0] && e[0].key != key && e[0].key) e[1] = e[0];
    slot->key = key; slot->score = score; slot->move = move; slot->depth = (int16_t)depth;
    slot->flag = (uint8_t)flag; slot->age = age;
}

/* ------------------------------------------------------------------ */
/* the evaluation */

#define ATTACK 40
#define ATTACK_PAIR 60
#define NEAR 12
#define TEMPO 35
static const int FAR[6] = {0, 0, 0, 14, 5, 2};
static const int LINE_NEED[6] = {0, 90, 40, 18, 7, 3};

typedef struct { int colour, ax, ay, bx, by; } Track;
static Track tracks[8192];

static int collect_tracks(void) {
    int n = 0;
    for (int y = miny - 1; y <= maxy + 1; y++)
        for (int x = minx - 1; x <= maxx + 1; x++) {
            int c = y * SZ + x, k = K[c];
            if (T[c] || !k) continue;
            for (int d = 0; d < 4; d++) {
                if (!((k >> d) & 17)) continue;
                /* the edge of c facing direction d */
                int e = 2 * c + EDGE_OFF[d], o = EP[e];
                if (e > o || n >= 8192) continue;
                int oc = end_cell(o);
                Track *tr = &tracks[n++];
                tr->colour = (k >> d & 1) ? 0 : 1;
                tr->ax = x; tr->ay = y; tr->bx = oc % SZ; tr->by = oc / SZ;
            }
        }
    return n;
}

static int evaluate(void) {
    int n = collect_tracks();
    int value[2] = {0, 0}, nat[2] = {0, 0};
    static int at[2][256][4];
    int lines = maxx - minx >= 3 || maxy - miny >= 3;
    int left = minx - 1, right = maxx + 1, top = miny - 1, bottom = maxy + 1;
    for (int i = 0; i < n; i++) {
        Track *tr = &tracks[i];
        int dx = abs(tr->ax - tr->bx), dy = abs(tr->ay - tr->by), d = dx + dy, c = tr->colour;
        if (d == 2) {
            if (nat[c] < 256) { int *a = at[c][nat[c]++]; a[0] = tr->ax; a[1] = tr->ay; a[2] = tr->bx; a[3] = tr->by; }
        } else if (d == 1) value[c] += NEAR;
        else if (d < 6) value[c] += FAR[d];
        if (lines) {
            int need, edges;
            if (dx >= dy) { need = 9 - dx; edges = (tr->ax == left || tr->ax == right) + (tr->bx == left || tr->bx == right); }
            else { need = 9 - dy; edges = (tr->ay == top || tr->ay == bottom) + (tr->by == top || tr->by == bottom); }
            if (need > 0 && need < 6) value[c] += LINE_NEED[need] * (1 + edges) / 3;
        }
    }
    for (int c = 0; c < 2; c++) {
        value[c] += ATTACK * nat[c];
        for (int i = 0; i < nat[c]; i++)
            for (int j = i + 1; j < nat[c]; j++) {
                int *a = at[c][i], *b = at[c][j], best = 1 << 20;
                for (int p = 0; p < 4; p += 2)
                    for (int q = 0; q < 4; q += 2) {
                        int dd = abs(a[p] - b[q]) + abs(a[p + 1] - b[q + 1]);
                        if (dd < best) best = dd;
                    }
                if (best <= 2) value[c] += ATTACK_PAIR;
            }
    }
    int me = ply & 1;
    int score = value[me] - value[1 - me];
    if (nat[me]) score += TEMPO;
    return score;
}

/* ------------------------------------------------------------------ */
/* move generation: every turn played once */

typedef struct { uint32_t move; int32_t score; uint64_t key; } Child;
static Child mstack[STACKMOVES];
static int msp;
static int threat_cells[MAXPLY + 8][64];
/* a small set of the positions one generate() has made, to drop repeats */
#define DBITS 12
static uint64_t dkeys[1 << DBITS];
static uint32_t dstamp[1 << DBITS], stamp;
static int dcount;

static int seen_before(uint64_t key) {
    if (++dcount > (3 << DBITS) / 4) return 0; /* full: keep every move */
    uint32_t i = (uint32_t)(key >> 40) & ((1 << DBITS) - 1);
    while (dstamp[i] == stamp) {
        if (dkeys[i] == key) return 1;
        i = (i + 1) & ((1 << DBITS) - 1);
    }
    dstamp[i] = stamp;
    dkeys[i] = key;
    return 0;
}
static int nthreat[MAXPLY + 8];

#define MV(c, t) ((uint32_t)(c) << 4 | (uint32_t)(t))
#define MV_CELL(m) ((int)((m) >> 4))
#define MV_TILE(m) ((int)((m) & 15))

/* Generate the children of the position at search ply sp into mstack from
 * msp on.  Returns 1 (and *win the winning move) when the side to move wins
 * in one, else 0; *count the children that lose no game at once, distinct
 * by position; the other side's winning cells go to threat_cells[sp]. */
static int generate(int sp, int *count, uint32_t *win) {
    int me = ply & 1, n = 0, base = msp;
    nthreat[sp] = 0;
    stamp++;
    dcount = 0;
    for (int y = miny - 1; y <= maxy + 1; y++)
        for (int x = minx - 1; x <= maxx + 1; x++) {
            int c = y * SZ + x, k = K[c];
            if (T[c] || !k) continue;
            for (int i = 0; i < NFIT[k]; i++) {
                int t = FIT[k][i];
                uint64_t key;
                int r = quick(c, t, &key);
                if (r == -2) {
                    r = make(c, t);
                    if (r < 0) continue;
                    key = H;
                    undo();
                }
                if (r == me + 1) { *win = MV(c, t); *count = n; return 1; }
                if (r) {
                    int dup = 0;
                    for (int j = 0; j < nthreat[sp]; j++) if (threat_cells[sp][j] == c) dup = 1;
                    if (!dup && nthreat[sp] < 64) threat_cells[sp][nthreat[sp]++] = c;
                    continue;
                }
                if (seen_before(key) || base + n >= STACKMOVES) continue;
                mstack[base + n].move = MV(c, t);
                mstack[base + n].key = key;
                mstack[base + n].score = 0;
                n++;
            }
        }
    *count = n;
    return 0;
}

/* After a move, does the other side (now to move) still win at one of the
 * threat cells of search ply sp? */
static int standing(int sp) {
    int mover = ply & 1;
    for (int i = 0; i < nthreat[sp]; i++) {
        int c = threat_cells[sp][i];
        if (T[c]) continue;
        int k = K[c];
        for (int j = 0; j < NFIT[k]; j++) {
            int r = make(c, FIT[k][j]);
            if (r < 0) continue;
            undo();
            if (r == mover + 1) return 1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* the search */

static long long nodes;
static double deadline;
static int stopped;
static uint32_t killers[MAXPLY + 8][2];
static int32_t *history;
#define HMASK ((1 << 20) - 1)

static void order(int base, int n, uint32_t ttmove, int sp, int focus_n, const int *focus) {
    for (int i = base; i < base + n; i++) {
        uint32_t m = mstack[i].move;
        int s = history[m & HMASK];
        if (m == ttmove) s += 1 << 30;
        else if (m == killers[sp][0]) s += 1 << 28;
        else if (m == killers[sp][1]) s += 1 << 27;
        int c = MV_CELL(m), x = c % SZ, y = c / SZ;
        for (int j = 0; j < focus_n; j++) {
            int fx = focus[j] % SZ, fy = focus[j] / SZ;
            int d = abs(x - fx) + abs(y - fy);
            if (d <= 2) { s += (3 - d) << 22; break; }
        }
        mstack[i].score = s;
    }
}

static inline void pick(int i, int end) {
    int best = i;
    for (int j = i + 1; j < end; j++) if (mstack[j].score > mstack[best].score) best = j;
    if (best != i) { Child tmp = mstack[i]; mstack[i] = mstack[best]; mstack[best] = tmp; }
}

static int focus_cells(int *out) {
    int n = collect_tracks(), m = 0;
    /* the end cells of the closest tracks */
    for (int lim = 2; lim <= 4 && m < 8; lim++)
        for (int i = 0; i < n && m < 8; i++) {
            Track *tr = &tracks[i];
            if (abs(tr->ax - tr->bx) + abs(tr->ay - tr->by) != lim) continue;
            out[m++] = tr->ay * SZ + tr->ax;
            out[m++] = tr->by * SZ + tr->bx;
        }
    return m;
}

static int search(int depth, int alpha, int beta, int sp, int qply) {
    if ((++nodes & 511) == 0 && cpu() > deadline) stopped = 1;
    if (stopped) return 0;
    if (sp >= MAXPLY - 2) return evaluate();
    uint64_t key = H;
    uint32_t ttmove = 0;
    Entry *e = tt_probe(key);
    if (e) {
        ttmove = e->move;
        if (e->depth >= depth) {
            int v = e->score;
            if (v >= WON) v -= sp; else if (v <= -WON) v += sp;
            if (e->flag == EXACT || (e->flag == LOWER && v >= beta) || (e->flag == UPPER && v <= alpha)) return v;
        }
    }
    int base = msp, n;
    uint32_t win;
    if (generate(sp, &n, &win)) {
        tt_store(key, MAXPLY, EXACT, WIN - sp - 1, win, sp);
        return WIN - sp - 1;
    }
    int threatened = nthreat[sp] > 0;
    if (depth <= 0 && !threatened) return evaluate();
    if (depth <= 0 && qply >= QMAX) return evaluate() - 300;
    msp += n;
    if (threatened) {
        int k = 0;
        for (int i = base; i < base + n; i++) {
            Child ch = mstack[i];
            make(MV_CELL(ch.move), MV_TILE(ch.move));
            int st = standing(sp);
            undo();
            if (!st) mstack[base + k++] = ch;
        }
        n = k;
        msp = base + n;
        if (!n) { msp = base; return -(WIN - sp - 2); }
    }
    int focus[64], nf = 0;
    if (threatened) for (int j = 0; j < nthreat[sp] && nf < 64; j++) focus[nf++] = threat_cells[sp][j];
    else if (depth >= 2) nf = focus_cells(focus);
    order(base, n, ttmove, sp, nf, focus);
    int next = depth - 1, nq = qply;
    if (threatened && depth > 0 && sp < 3 * depth + 8) next = depth;
    if (depth <= 0) { next = 0; nq = qply + 1; }
    int best = -INF, start_alpha = alpha;
    uint32_t best_move = 0;
    for (int i = 0; i < n; i++) {
        pick(base + i, base + n);
        uint32_t m = mstack[base + i].move;
        make(MV_CELL(m), MV_TILE(m));
        int score;
        if (i == 0) score = -search(next, -beta, -alpha, sp + 1, nq);
        else {
            score = -search(next, -alpha - 1, -alpha, sp + 1, nq);
            if (score > alpha && score < beta && !stopped) score = -search(next, -beta, -alpha, sp + 1, nq);
        }
        undo();
        if (stopped) { msp = base; return 0; }
        if (score > best) {
            best = score;
            best_move = m;
            if (score > alpha) {
                alpha = score;
                if (alpha >= beta) {
                    if (killers[sp][0] != m) { killers[sp][1] = killers[sp][0]; killers[sp][0] = m; }
                    history[m & HMASK] += depth > 0 ? depth * depth + 1 : 1;
                    break;
                }
            }
        }
    }
    msp = base;
    int flag = best <= start_alpha ? UPPER : best >= beta ? LOWER : EXACT;
    tt_store(key, depth > 0 ? depth : 0, flag, best, best_move, sp);
    return best;
}

/* ------------------------------------------------------------------ */
/* threat-space search: win by threats alone */

/* Can the side to move win by making a threat with every move, the other
 * side always forced to block, within depth attacking moves?  Sound: a win
 * is claimed only when every answer loses. */
static int attack(int depth, int sp, uint32_t *found) {
    if ((++nodes & 511) == 0 && cpu() > deadline) stopped = 1;
    if (stopped || sp >= MAXPLY - 4) return 0;
    int base = msp, n;
    uint32_t win;
    if (generate(sp, &n, &win)) { *found = win; return 1; }
    if (nthreat[sp] || depth <= 0) return 0;
    msp += n;
    int me = ply & 1, result = 0;
    /* only moves near the ends of the mover's close tracks */
    int nt = collect_tracks(), spots[64], ns = 0;
    for (int i = 0; i < nt && ns < 62; i++) {
        Track *tr = &tracks[i];
        if (tr->colour != me) continue;
        int dx = abs(tr->ax - tr->bx), dy = abs(tr->ay - tr->by);
        if (dx + dy <= 4 || dx >= 6 || dy >= 6) { spots[ns++] = tr->ay * SZ + tr->ax; spots[ns++] = tr->by * SZ + tr->bx; }
    }
    for (int i = 0; i < n && !result && !stopped; i++) {
        uint32_t m = mstack[base + i].move;
        int c = MV_CELL(m), x = c % SZ, y = c / SZ, near = 0;
        for (int j = 0; j < ns && !near; j++)
            if (abs(x - spots[j] % SZ) + abs(y - spots[j] / SZ) <= 2) near = 1;
        if (!near) continue;
        make(c, MV_TILE(m));
        int bn;
        uint32_t w2;
        int ab = msp;
        if (generate(sp + 1, &bn, &w2)) { undo(); continue; } /* gives the other side a win */
        if (!nthreat[sp + 1]) { undo(); continue; }          /* no threat made */
        msp += bn;
        int all = 1, any = 0;
        for (int j = 0; j < bn && all && !stopped; j++) {
            uint32_t a = mstack[ab + j].move;
            make(MV_CELL(a), MV_TILE(a));
            int st = standing(sp + 1);
            if (!st) {
                any = 1;
                uint32_t f2;
                if (!attack(depth - 1, sp + 2, &f2)) all = 0;
            }
            undo();
        }
        msp = ab;
        undo();
        if (all && !stopped) { result = 1; *found = m; }
        (void)any;
    }
    msp = base;
    return result;
}

/* ------------------------------------------------------------------ */
/* the root */

static uint64_t rng_state;
static uint64_t rnd(void) { rng_state += 0x9E3779B97F4A7C15ULL; return mix(rng_state); }

static uint32_t think(double budget, int *out_depth, int *out_score) {
    double start = cpu();
    deadline = start + (budget - 0.01 > budget * 0.5 ? budget - 0.01 : budget * 0.5);
    stopped = 0;
    nodes = 0;
    msp = 0;
    age++;
    memset(killers, 0, sizeof killers);
    for (int i = 0; i <= HMASK; i++) history[i] /= 8;
    *out_depth = 0; *out_score = 0;
    int n;
    uint32_t win;
    if (generate(0, &n, &win)) { *out_score = WIN - 1; return win; }
    int me = ply & 1;
    msp = n;
    if (nthreat[0]) {
        int k = 0;
        for (int i = 0; i < n; i++) {
            Child ch = mstack[i];
            make(MV_CELL(ch.move), MV_TILE(ch.move));
            int st = standing(0);
            undo();
            if (!st) mstack[k++] = ch;
        }
        if (k == 0) {
            /* lost: any legal move */
            *out_score = -(WIN - 2);
            if (n) return mstack[0].move;
            for (int y = miny - 1; y <= maxy + 1; y++)
                for (int x = minx - 1; x <= maxx + 1; x++) {
                    int c = y * SZ + x, kk = K[c];
                    if (T[c] || !kk) continue;
                    for (int i = 0; i < NFIT[kk]; i++)
                        if (make(c, FIT[kk][i]) >= 0) { undo(); return MV(c, FIT[kk][i]); }
                }
            return 0;
        }
        n = k;
        if (n == 1) return mstack[0].move;
    } else if (n == 0) {
        /* every move hands the other side the game */
        for (int y = miny - 1; y <= maxy + 1; y++)
            for (int x = minx - 1; x <= maxx + 1; x++) {
                int c = y * SZ + x, kk = K[c];
                if (T[c] || !kk) continue;
                for (int i = 0; i < NFIT[kk]; i++)
                    if (make(c, FIT[kk][i]) >= 0) { undo(); *out_score = -(WIN - 2); return MV(c, FIT[kk][i]); }
            }
        return 0;
    } else {
        /* a win by threats alone */
        double saved = deadline;
        double cap = start + budget * 0.2;
        if (cap < deadline) deadline = cap;
        for (int d = 1; d <= 5 && !stopped; d++) {
            uint32_t found;
            msp = n;
            if (attack(d, 0, &found) && !stopped) {
                deadline = saved;
                *out_score = WON; *out_depth = d;
                return found;
            }
        }
        stopped = 0;
        deadline = saved;
    }
    (void)me;
    msp = n;
    /* shuffle, then order by a one-ply look */
    for (int i = n - 1; i > 0; i--) { int j = (int)(rnd() % (uint64_t)(i + 1)); Child t = mstack[i]; mstack[i] = mstack[j]; mstack[j] = t; }
    int focus[64], nf = focus_cells(focus);
    order(0, n, 0, 0, nf, focus);
    for (int i = 0; i < n; i++) pick(i, n);
    uint32_t best = mstack[0].move;
    int best_score = 0;
    for (int depth = 1; depth < MAXPLY / 2; depth++) {
        int alpha = -INF;
        uint32_t iter_best = 0;
        for (int i = 0; i < n; i++) {
            uint32_t m = mstack[i].move;
            make(MV_CELL(m), MV_TILE(m));
            int score;
            if (i == 0) score = -search(depth - 1, -INF, INF, 1, 0);
            else {
                score = -search(depth - 1, -alpha - 1, -alpha, 1, 0);
                if (score > alpha && !stopped) score = -search(depth - 1, -INF, -alpha, 1, 0);
            }
            undo();
            if (stopped) break;
            mstack[i].score = score;
            if (score > alpha) { alpha = score; iter_best = m; }
        }
        if (stopped) {
            /* the first move searched is the last iteration's best: a move
             * that finished this iteration is as good or better */
            if (iter_best) { best = iter_best; best_score = alpha; }
            break;
        }
        /* stable sort by score, best first */
        for (int i = 1; i < n; i++) {
            Child c = mstack[i];
            int j = i - 1;
            while (j >= 0 && mstack[j].score < c.score) { mstack[j + 1] = mstack[j]; j--; }
            mstack[j + 1] = c;
        }
        best = mstack[0].move;
        best_score = mstack[0].score;
        *out_depth = depth;
        if (best_score >= WON || best_score <= -WON) break;
        if (cpu() - start > budget * 0.5) break;
    }
    *out_score = best_score;
    return best;
}

/* ------------------------------------------------------------------ */
/* the protocol */

static char line[1 << 22];
static int xs[1 << 16], ys[1 << 16], ts[1 << 16];

static char *cursor;
static int next_int(void) {
    while (*cursor == ' ' || *cursor == '\t') cursor++;
    return (int)strtol(cursor, &cursor, 10);
}
static double next_double(void) {
    while (*cursor == ' ' || *cursor == '\t') cursor++;
    return strtod(cursor, &cursor);
}

static void read_position(void) {
    int p = next_int(), n = next_int();
    if (n < 0 || n > (1 << 16)) { fprintf(stderr, "crival: bad tile count\n"); exit(2); }
    for (int i = 0; i < n; i++) { xs[i] = next_int(); ys[i] = next_int(); ts[i] = next_int(); }
    setup(p, n, xs, ys, ts);
}

int main(void) {
    tables();
    tt = calloc((size_t)1 << TTBITS, sizeof(Entry));
    history = calloc((size_t)HMASK + 1, sizeof(int32_t));
    if (!tt || !history) return 3;
    OX = OY = SZ / 2;
    while (fgets(line, sizeof line, stdin)) {
        cursor = line;
        while (*cursor == ' ') cursor++;
        if (!strncmp(cursor, "go", 2) || !strncmp(cursor, "bench", 5)) {
            int is_bench = cursor[0] == 'b';
            cursor += is_bench ? 5 : 2;
            double budget = next_double();
            if (!is_bench) rng_state = (uint64_t)next_int() * 0x2545F4914F6CDD1DULL + 1;
            double t0 = cpu();
            read_position();
            int depth, score;
            uint32_t m;
            if (ntiles == 0) { m = MV(SZ / 2 * SZ + SZ / 2, rnd() & 1 ? 9 : 5); depth = 0; score = 0; nodes = 0; }
            else m = think(budget, &depth, &score);
            double spent = cpu() - t0;
            if (is_bench) printf("nodes %d %lld %.4f\n", depth, nodes, spent);
            else {
                int c = MV_CELL(m);
                printf("move %d %d %d %d %lld %d %.4f\n", c % SZ - OX, c / SZ - OY, MV_TILE(m), depth, nodes, score, spent);
            }
        } else if (!strncmp(cursor, "legal", 5)) {
            cursor += 5;
            read_position();
            for (int y = miny - 1; y <= maxy + 1; y++)
                for (int x = minx - 1; x <= maxx + 1; x++) {
                    int c = y * SZ + x, k = K[c];
                    if (T[c] || !k) continue;
                    for (int i = 0; i < NFIT[k]; i++) {
                        int t = FIT[k][i];
                        uint64_t qkey;
                        int q = quick(c, t, &qkey);
                        int r = make(c, t);
                        if (r < 0) continue;
                        int winner = r - 1, reason = 0;
                        if (r) reason = (last_loops >> winner & 1) ? 1 : 2;
                        /* QUICK: what the search's shortcut for a turn that
                         * forces nothing says (-2: it forces), and whether
                         * its key is the played position's */
                        printf("%d %d %d %d %d %d %d", x - OX, y - OY, t, q < 0 ? q : q - 1, q == -2 || qkey == H,
                               winner, reason);
                        printf(" %d", nplaced);
                        for (int j = 0; j < nplaced; j++)
                            printf(" %d %d %d", placed[j] % SZ - OX, placed[j] / SZ - OY, T[placed[j]]);
                        printf("\n");
                        undo();
                    }
                }
            printf("end\n");
        } else if (!strncmp(cursor, "quit", 4)) {
            break;
        } else {
            printf("error\n");
        }
        fflush(stdout);
    }
    return 0;
}
