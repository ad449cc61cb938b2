/*
 * controller.engine._equity_c: exact all-in equity (S-8, G-1, G-2) in C.
 *
 * The optional compiled path of controller/engine/equity.py (issue 21): built from this
 * source by the normal install (`pip install -e .`, see setup.py); when it is missing the
 * module's numpy and pure-Python paths give the same answers (tests/engine/test_equity.py
 * checks that they are identical).
 *
 * The hand-ranking rules are not written here: setup() receives the evaluator's own
 * tables (controller/engine/evaluator.py, H-1..H-4): the rank of every five-rank multiset
 * without a flush, and of every 13-bit suit mask (flush or straight flush). The six- and
 * seven-rank values are derived here the way the evaluator derives them (the best five of
 * n cards is the best five of one of its n-1 card parts).
 *
 * How a spot is counted: every completion of the board is dealt (exact enumeration, like
 * a brute force), but a player's hand is never evaluated per board. A player's non-flush
 * value depends only on the multiset of ranks dealt, so it is looked up in a small table
 * made per player for the spot (13 entries on the turn, 91 on the flop, 6,188 pre-flop);
 * a flush is only possible when the board holds three cards of one suit, and only then is
 * the flush table asked. Shares are counted in units of 1/2520 (lcm 1..10), so the sums
 * are exact integers.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define UNITS 2520
#define MAXP 10

static int ready = 0;
static int16_t NF5[6188];   /* colex index of a sorted 5-rank multiset -> rank (0: invalid) */
static int16_t NF6[18564];  /* 6 ranks, C(18,6) */
static int16_t NF7[50388];  /* 7 ranks, C(19,7) */
static int16_t FLUSH[8192]; /* 13-bit suit mask -> rank of the best flush (0: < 5 cards) */
static int16_t T5[91][455]; /* [pair multiset][trio multiset] -> five-rank value (Omaha) */
/* A perfect index of the 49,205 seven-rank multisets: a rank's weight W is 5**rank for the
 * ranks 2..8 (bits 0..16) and 5**(rank-7) << 17 for 9..A, so the sum of seven weights
 * splits into a low and a high base-5 count; A7[low] + B7[high] is the multiset's index in
 * NF7F. Keys of impossible multisets stay inside the tables (their entries are 0). */
static uint32_t W[13];
static uint16_t A7[1 << 17]; /* uint16: every index fits, and the tables stay small in the cache */
static uint16_t B7[1 << 15];
static int16_t NF7F[49205 + 8192]; /* the tail: what impossible keys reach */
static uint16_t A5[1 << 17];        /* the same for five ranks (boards): 6,175 */
static uint16_t B5[1 << 15];
static int32_t CK[8][64];   /* CK[k][c] = C(c, k) */
static PyObject *card_type = NULL;
static const int STRAIGHTS[10] = {0x1F00, 0x0F80, 0x07C0, 0x03E0, 0x01F0,
                                  0x00F8, 0x007C, 0x003E, 0x001F, 0x100F};

/* Colex index of a sorted (non-decreasing) multiset of n ranks 0..12. */
static inline int ms_index(const int *r, int n) {
    int s = 0;
    for (int k = 0; k < n; k++) s += CK[k + 1][r[k] + k];
    return s;
}

static int valid_ms(const int *r, int n) {
    for (int k = 0; k + 4 < n; k++)
        if (r[k] == r[k + 4]) return 0;
    return 1;
}

/* Next sorted multiset of n ranks in 0..12 (non-decreasing); 0 when done. */
static int next_ms(int *r, int n) {
    int i = n - 1;
    while (i >= 0 && r[i] == 12) i--;
    if (i < 0) return 0;
    r[i]++;
    for (int j = i + 1; j < n; j++) r[j] = r[i];
    return 1;
}

static void derive(const int16_t *prev, int16_t *cur, int n) {
    int r[8] = {0}, rest[8];
    do {
        int v = 0;
        if (valid_ms(r, n)) {
            for (int drop = 0; drop < n; drop++) {
                int j = 0;
                for (int k = 0; k < n; k++) if (k != drop) rest[j++] = r[k];
                int x = prev[ms_index(rest, n - 1)];
                if (x > v) v = x;
            }
        }
        cur[ms_index(r, n)] = (int16_t)v;
    } while (next_ms(r, n));
}

static void sort_small(int *a, int n) {
    for (int i = 1; i < n; i++) {
        int x = a[i], j = i - 1;
        while (j >= 0 && a[j] > x) { a[j + 1] = a[j]; j--; }
        a[j + 1] = x;
    }
}

/* Fill A (low keys) and B (high keys) so that A[low] + B[high] numbers the multisets of
 * `cards` ranks 0..cards-total-1; return that total. */
static int build_split(int cards, uint16_t *A, uint16_t *B) {
    int count_lo[8] = {0}, count_hi[8] = {0};
    static int32_t rank_hi[15625];
    static int size_hi[15625];
    for (int key = 0; key < 78125; key++) {
        int k = key, n = 0;
        for (int i = 0; i < 7; i++) { n += k % 5; k /= 5; }
        A[key] = (uint16_t)(n <= cards ? count_lo[n]++ : 0);
    }
    for (int key = 0; key < 15625; key++) {
        int k = key, n = 0;
        for (int i = 0; i < 6; i++) { n += k % 5; k /= 5; }
        size_hi[key] = n;
        rank_hi[key] = n <= cards ? count_hi[n]++ : 0;
    }
    int offset[8], o = 0;
    for (int j = 0; j <= cards; j++) { offset[j] = o; o += count_hi[j] * count_lo[cards - j]; }
    for (int key = 0; key < 15625; key++) {
        int j = size_hi[key];
        B[key] = (uint16_t)(j <= cards ? offset[j] + rank_hi[key] * count_lo[cards - j] : 0);
    }
    return o;
}

static PyObject *py_setup(PyObject *self, PyObject *args) {
    Py_buffer nf5, fl;
    PyObject *ct;
    if (!PyArg_ParseTuple(args, "y*y*O", &nf5, &fl, &ct)) return NULL;
    if (nf5.len != (Py_ssize_t)sizeof(NF5) || fl.len != (Py_ssize_t)sizeof(FLUSH)) {
        PyBuffer_Release(&nf5);
        PyBuffer_Release(&fl);
        PyErr_SetString(PyExc_ValueError, "setup: tables of the wrong size");
        return NULL;
    }
    for (int c = 0; c < 64; c++) {
        CK[0][c] = 1;
        for (int k = 1; k < 8; k++)
            CK[k][c] = c < k ? 0 : (c == 0 ? 0 : CK[k][c - 1] + CK[k - 1][c - 1]);
    }
    memcpy(NF5, nf5.buf, sizeof(NF5));
    memcpy(FLUSH, fl.buf, sizeof(FLUSH));
    PyBuffer_Release(&nf5);
    PyBuffer_Release(&fl);
    derive(NF5, NF6, 6);
    derive(NF6, NF7, 7);
    for (int r = 0; r < 13; r++) {
        uint32_t w = 1;
        for (int k = 0; k < (r < 7 ? r : r - 7); k++) w *= 5;
        W[r] = r < 7 ? w : w << 17;
    }
    {
        int o = build_split(7, A7, B7);
        if (build_split(5, A5, B5) != 6175) {
            PyErr_SetString(PyExc_RuntimeError, "setup: the five-rank index is not perfect");
            return NULL;
        }
        int32_t most_a = 0, most_b = 0;
        for (int key = 0; key < (1 << 17); key++) if (A7[key] > most_a) most_a = A7[key];
        for (int key = 0; key < (1 << 15); key++) if (B7[key] > most_b) most_b = B7[key];
        if (o != 49205 || most_a + most_b >= (int32_t)(sizeof NF7F / sizeof NF7F[0])) {
            PyErr_SetString(PyExc_RuntimeError, "setup: the seven-rank index is not perfect");
            return NULL;
        }
        int r[7] = {0};
        do {
            if (!valid_ms(r, 7)) continue;
            uint32_t key = 0;
            for (int i = 0; i < 7; i++) key += W[r[i]];
            NF7F[A7[key & 0x1FFFF] + B7[key >> 17]] = NF7[ms_index(r, 7)];
        } while (next_ms(r, 7));
    }
    int p[2] = {0, 0};
    do {
        int t[3] = {0, 0, 0};
        do {
            int f[5] = {p[0], p[1], t[0], t[1], t[2]};
            sort_small(f, 5);
            T5[ms_index(p, 2)][ms_index(t, 3)] = valid_ms(f, 5) ? NF5[ms_index(f, 5)] : 0;
        } while (next_ms(t, 3));
    } while (next_ms(p, 2));
    Py_XDECREF(card_type);
    Py_INCREF(ct);
    card_type = ct;
    ready = 1;
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------ the count */

typedef struct {
    int omaha, players, nb, nd;
    int hole[MAXP][4];
    int board[5];
    int dead[52];
} spot_t;

static int omaha_flush(int pair_mask, int board_mask) {
    for (int i = 0; i < 10; i++) {
        int w = STRAIGHTS[i], need = w ^ pair_mask;
        if ((w & pair_mask) == pair_mask && (board_mask & need) == need) return FLUSH[w];
    }
    if (__builtin_popcount(board_mask) < 3) return 0;
    int top3 = 0, m = board_mask;
    for (int k = 0; k < 3; k++) {
        int hb = 1 << (31 - __builtin_clz(m));
        top3 |= hb;
        m ^= hb;
    }
    return FLUSH[pair_mask | top3];
}

static const int TRIOS[10][3] = {{0, 1, 2}, {0, 1, 3}, {0, 1, 4}, {0, 2, 3}, {0, 2, 4},
                                 {0, 3, 4}, {1, 2, 3}, {1, 2, 4}, {1, 3, 4}, {2, 3, 4}};
static const int PAIRS[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};

/* The per-player tables: nf[p * size + ms_index(dealt ranks)] = non-flush value. */
static void player_tables(const spot_t *s, int m, int size, int16_t *nf) {
    int P = s->players, nb = s->nb;
    int d[5] = {0, 0, 0, 0, 0};
    if (!s->omaha) {
        uint32_t known = 0;
        for (int i = 0; i < nb; i++) known += W[s->board[i] >> 2];
        for (int p = 0; p < P; p++) {
            uint32_t base = known + W[s->hole[p][0] >> 2] + W[s->hole[p][1] >> 2];
            int16_t *out = nf + p * size;
            if (m == 0) {
                out[0] = NF7F[A7[base & 0x1FFFF] + B7[base >> 17]];
            } else if (m == 1) {
                for (int a = 0; a < 13; a++) {
                    uint32_t k = base + W[a];
                    out[a] = NF7F[A7[k & 0x1FFFF] + B7[k >> 17]];
                }
            } else if (m == 2) {
                for (int b = 0; b < 13; b++)
                    for (int a = 0; a <= b; a++) {
                        uint32_t k = base + W[a] + W[b];
                        out[CK[1][a] + CK[2][b + 1]] = NF7F[A7[k & 0x1FFFF] + B7[k >> 17]];
                    }
            } else {
                memset(d, 0, sizeof d);
                do {
                    uint32_t k = base;
                    for (int i = 0; i < m; i++) k += W[d[i]];
                    out[ms_index(d, m)] = NF7F[A7[k & 0x1FFFF] + B7[k >> 17]];
                } while (next_ms(d, m));
            }
        }
        return;
    }
    /* Omaha: best of (two hole ranks) x (three board ranks), G-2 */
    int pairs[MAXP][6];
    for (int p = 0; p < P; p++)
        for (int k = 0; k < 6; k++) {
            int a = s->hole[p][PAIRS[k][0]] >> 2, b = s->hole[p][PAIRS[k][1]] >> 2;
            int two[2] = {a < b ? a : b, a < b ? b : a};
            pairs[p][k] = ms_index(two, 2);
        }
    if (m >= 3) {
        /* many boards: first each player's best pair for every trio multiset */
        int16_t pt[455];
        for (int p = 0; p < P; p++) {
            for (int t = 0; t < 455; t++) {
                int v = 0;
                for (int k = 0; k < 6; k++) if (T5[pairs[p][k]][t] > v) v = T5[pairs[p][k]][t];
                pt[t] = (int16_t)v;
            }
            int16_t *out = nf + p * size;
            memset(d, 0, sizeof d);
            do {
                int b5[5];
                for (int i = 0; i < nb; i++) b5[i] = s->board[i] >> 2;
                memcpy(b5 + nb, d, sizeof(int) * m);
                sort_small(b5, 5);
                int v = 0;
                if (valid_ms(b5, 5))
                    for (int t = 0; t < 10; t++) {
                        int tr[3] = {b5[TRIOS[t][0]], b5[TRIOS[t][1]], b5[TRIOS[t][2]]};
                        int x = pt[ms_index(tr, 3)];
                        if (x > v) v = x;
                    }
                out[ms_index(d, m)] = (int16_t)v;
            } while (next_ms(d, m));
        }
        return;
    }
    /* flop, turn, river: the trios of known board cards are the same on every board */
    int known[5];
    for (int i = 0; i < nb; i++) known[i] = s->board[i] >> 2;
    int fixed[MAXP];
    for (int p = 0; p < P; p++) fixed[p] = 0;
    for (int t = 0; t < 10; t++) {
        if (TRIOS[t][2] >= nb) continue;
        int tr[3] = {known[TRIOS[t][0]], known[TRIOS[t][1]], known[TRIOS[t][2]]};
        sort_small(tr, 3);
        int ti = ms_index(tr, 3);
        for (int p = 0; p < P; p++)
            for (int k = 0; k < 6; k++) if (T5[pairs[p][k]][ti] > fixed[p]) fixed[p] = T5[pairs[p][k]][ti];
    }
    memset(d, 0, sizeof d);
    /* the varying trios of every multiset dealt, then each hole pair's row of T5 scanned
     * over them (the row stays in the cache) */
    int tis[91][10], nt = 0, dis[91], nd = 0;
    do {
        int b5[5];
        memcpy(b5, known, sizeof(int) * nb);
        memcpy(b5 + nb, d, sizeof(int) * m);
        nt = 0;
        for (int t = 0; t < 10; t++) {
            if (TRIOS[t][2] < nb) continue;
            int tr[3] = {b5[TRIOS[t][0]], b5[TRIOS[t][1]], b5[TRIOS[t][2]]};
            sort_small(tr, 3);
            tis[nd][nt++] = ms_index(tr, 3);
        }
        dis[nd++] = ms_index(d, m);
    } while (m && next_ms(d, m));
    for (int p = 0; p < P; p++) {
        int16_t *out = nf + p * size;
        for (int g = 0; g < nd; g++) out[dis[g]] = (int16_t)fixed[p];
        for (int k = 0; k < 6; k++) {
            const int16_t *row = T5[pairs[p][k]];
            for (int g = 0; g < nd; g++) {
                int v = out[dis[g]];
                for (int t = 0; t < nt; t++) if (row[tis[g][t]] > v) v = row[tis[g][t]];
                out[dis[g]] = (int16_t)v;
            }
        }
    }
}

/* Add w boards' pot shares to the players with the best value (a tie splits, H-5). */
static inline void payout(const int *v, int P, int64_t w, int64_t *acc) {
    int best = 0, k = 0;
    for (int p = 0; p < P; p++) {
        if (v[p] > best) { best = v[p]; k = 1; } else if (v[p] == best) k++;
    }
    int64_t share = (UNITS / k) * w;
    for (int p = 0; p < P; p++) if (v[p] == best) acc[p] += share;
}

static inline int idx5(uint32_t key) { return A5[key & 0x1FFFF] + B5[key >> 17]; }
static inline int nf7(uint32_t key) { return NF7F[A7[key & 0x1FFFF] + B7[key >> 17]]; }

typedef struct { uint32_t key; int64_t w; } group_t;

/* Every multiset of k ranks dealt from `avail` (cards left per rank) with its number of
 * deals; into out (room for 6,188), returns how many. */
static int multisets(int k, const int *avail, group_t *out) {
    int d[5] = {0, 0, 0, 0, 0}, n = 0;
    do {
        int64_t w = 1;
        uint32_t key = 0;
        for (int i = 0; i < k && w; i++) {
            int c = 1;
            while (i + c < k && d[i + c] == d[i]) c++;
            w *= CK[c][avail[d[i]]];
            for (int j = 0; j < c; j++) key += W[d[i]];
            i += c - 1;
        }
        if (w) { out[n].key = key; out[n].w = w; n++; }
    } while (k && next_ms(d, k));
    return n;
}

/* Pre-flop (or a board of one or two cards): the algorithm of equity.py in C. The boards
 * are grouped by the multiset of ranks dealt (6,188 groups pre-flop instead of up to
 * 2.1 million boards), each group's non-flush outcome counted once with its number of
 * boards; then, suit by suit, the boards on which somebody can make a flush are grouped
 * by the set of that suit's ranks dealt and the multiset of the other ranks, and their
 * share is moved from the non-flush outcome to the real one. */
static int count_grouped(const spot_t *s, int m, const int *deck, int n, int64_t *acc) {
    int P = s->players, nb = s->nb, omaha = s->omaha, hc = omaha ? 4 : 2;
    int avail[13] = {0}, savm[4] = {0};
    for (int i = 0; i < n; i++) { avail[deck[i] >> 2]++; savm[deck[i] & 3] |= 1 << (deck[i] >> 2); }
    uint32_t kkey = 0;
    int kbc[4] = {0}, kbm[4] = {0}, known[5];
    for (int i = 0; i < nb; i++) {
        int c = s->board[i];
        known[i] = c >> 2;
        kkey += W[c >> 2];
        kbc[c & 3]++;
        kbm[c & 3] |= 1 << (c >> 2);
    }
    int hsc[MAXP][4], hmask[MAXP][4], spairs[MAXP][4][6], nsp[MAXP][4], pairs[MAXP][6];
    uint32_t hkey[MAXP];
    memset(hsc, 0, sizeof hsc); memset(hmask, 0, sizeof hmask); memset(nsp, 0, sizeof nsp);
    for (int p = 0; p < P; p++) {
        hkey[p] = 0;
        for (int i = 0; i < hc; i++) {
            int c = s->hole[p][i];
            hsc[p][c & 3]++;
            hmask[p][c & 3] |= 1 << (c >> 2);
            hkey[p] += W[c >> 2];
        }
        if (omaha)
            for (int k = 0; k < 6; k++) {
                int a = s->hole[p][PAIRS[k][0]], b = s->hole[p][PAIRS[k][1]];
                int two[2] = {(a >> 2) < (b >> 2) ? a >> 2 : b >> 2, (a >> 2) < (b >> 2) ? b >> 2 : a >> 2};
                pairs[p][k] = ms_index(two, 2);
                if ((a & 3) == (b & 3))
                    spairs[p][a & 3][nsp[p][a & 3]++] = (1 << (a >> 2)) | (1 << (b >> 2));
            }
    }
    int16_t *nf = (int16_t *)malloc(sizeof(int16_t) * 6175 * P);   /* [board][player] */
    int16_t *pt = (int16_t *)malloc(sizeof(int16_t) * 455 * P);    /* Omaha: [player][trio] */
    group_t *groups = (group_t *)malloc(sizeof(group_t) * 6188 * 6);
    if (!nf || !pt || !groups) { free(nf); free(pt); free(groups); return -2; }
    if (omaha)
        for (int p = 0; p < P; p++)
            for (int t = 0; t < 455; t++) {
                int v = 0;
                for (int k = 0; k < 6; k++) if (T5[pairs[p][k]][t] > v) v = T5[pairs[p][k]][t];
                pt[p * 455 + t] = (int16_t)v;
            }

    /* 1. the non-flush outcome of every multiset of ranks dealt */
    int ng = multisets(m, avail, groups);
    int v[MAXP], real[MAXP];
    for (int g = 0; g < ng; g++) {
        uint32_t bkey = kkey + groups[g].key;
        int16_t *row = nf + idx5(bkey) * P;
        if (!omaha) {
            for (int p = 0; p < P; p++) v[p] = row[p] = (int16_t)nf7(bkey + hkey[p]);
        } else {
            int b5[5];
            uint32_t k = groups[g].key;
            memcpy(b5, known, sizeof(int) * nb);
            for (int r = 0, j = nb; r < 13; r++) {  /* unpack the dealt ranks from the key */
                int c = r < 7 ? (int)((k & 0x1FFFF) / W[r] % 5) : (int)((k >> 17) / (W[r] >> 17) % 5);
                while (c--) b5[j++] = r;
            }
            sort_small(b5, 5);
            int tis[10];
            for (int t = 0; t < 10; t++) {
                int tr[3] = {b5[TRIOS[t][0]], b5[TRIOS[t][1]], b5[TRIOS[t][2]]};
                tis[t] = ms_index(tr, 3);
            }
            for (int p = 0; p < P; p++) {
                const int16_t *pp = pt + p * 455;
                int x = 0;
                for (int t = 0; t < 10; t++) if (pp[tis[t]] > x) x = pp[tis[t]];
                v[p] = row[p] = (int16_t)x;
            }
        }
        payout(v, P, groups[g].w, acc);
    }

    /* 2. the boards with a flush for somebody, suit by suit */
    for (int q = 0; q < 4; q++) {
        int b0 = kbc[q], most_h = 0, any = 0;
        for (int p = 0; p < P; p++) {
            if (hsc[p][q] > most_h) most_h = hsc[p][q];
            if (nsp[p][q]) any = 1;
        }
        int jmin = omaha ? 3 - b0 : 5 - b0 - most_h;
        if (omaha && !any) continue;
        if (jmin < 0) jmin = 0;
        int jmax = __builtin_popcount(savm[q]);
        if (jmax > m) jmax = m;
        if (jmin > jmax) continue;
        int av_ns[13];
        for (int r = 0; r < 13; r++) av_ns[r] = avail[r] - (savm[q] >> r & 1);
        for (int j = jmin; j <= jmax; j++) {
            int no = multisets(m - j, av_ns, groups);
            if (!no) continue;
            for (int fr = (1 << j) - 1; fr < (1 << 13);) {
                if (!(fr & ~savm[q])) {
                    int fmask = kbm[q] | fr, fl[MAXP], can = 0;
                    uint32_t fkey = 0;
                    for (int r = 0; r < 13; r++) if (fr >> r & 1) fkey += W[r];
                    for (int p = 0; p < P; p++) {
                        int f = 0;
                        if (!omaha) {
                            if (b0 + j + hsc[p][q] >= 5) f = FLUSH[fmask | hmask[p][q]];
                        } else if (b0 + j >= 3) {
                            for (int k = 0; k < nsp[p][q]; k++) {
                                int x = omaha_flush(spairs[p][q][k], fmask);
                                if (x > f) f = x;
                            }
                        }
                        fl[p] = f;
                        can |= f != 0;
                    }
                    if (can)
                        for (int o = 0; o < no; o++) {
                            const int16_t *row = nf + idx5(kkey + fkey + groups[o].key) * P;
                            int changed = 0;
                            for (int p = 0; p < P; p++) {
                                v[p] = row[p];
                                real[p] = fl[p] > v[p] ? (changed = 1, fl[p]) : v[p];
                            }
                            if (changed) {
                                payout(v, P, -groups[o].w, acc);
                                payout(real, P, groups[o].w, acc);
                            }
                        }
                }
                if (j == 0) break;
                int t = fr | (fr - 1); /* next j-bit mask (Gosper) */
                fr = (t + 1) | (((~t & -~t) - 1) >> (__builtin_ctz(fr) + 1));
            }
        }
    }
    free(nf); free(pt); free(groups);
    return 0;
}

/* Count the spot: acc[p] = pot share units summed over every board; *total = boards.
 * Returns 0, or -1 when the deck cannot complete the board (the caller checked). */
static int count_spot(const spot_t *s, int64_t *acc, int64_t *total) {
    int P = s->players, hc = s->omaha ? 4 : 2, nb = s->nb, m = 5 - nb;
    uint64_t used = 0;
    for (int p = 0; p < P; p++)
        for (int i = 0; i < hc; i++) used |= 1ULL << s->hole[p][i];
    for (int i = 0; i < nb; i++) used |= 1ULL << s->board[i];
    for (int i = 0; i < s->nd; i++) used |= 1ULL << s->dead[i];
    int deck[52], n = 0;
    for (int i = 0; i < 52; i++) if (!(used >> i & 1)) deck[n++] = i;
    for (int p = 0; p < P; p++) acc[p] = 0;
    if (n < m) return -1;
    if (m >= 3) {
        *total = CK[m][n];
        return count_grouped(s, m, deck, n, acc);
    }
    int size = CK[m][12 + m];  /* multisets of m ranks: C(13 + m - 1, m) */
    int16_t small[MAXP * 91];
    int16_t *nf = size <= 91 ? small : (int16_t *)malloc(sizeof(int16_t) * P * size);
    if (!nf) return -2;
    player_tables(s, m, size, nf);

    int hsc[MAXP][4] = {{0}}, hmask[MAXP][4] = {{0}}, spairs[MAXP][4][6], nsp[MAXP][4];
    memset(nsp, 0, sizeof nsp);
    for (int p = 0; p < P; p++) {
        for (int i = 0; i < hc; i++) {
            int c = s->hole[p][i];
            hsc[p][c & 3]++;
            hmask[p][c & 3] |= 1 << (c >> 2);
        }
        if (s->omaha)
            for (int k = 0; k < 6; k++) {
                int a = s->hole[p][PAIRS[k][0]], b = s->hole[p][PAIRS[k][1]];
                if ((a & 3) == (b & 3))
                    spairs[p][a & 3][nsp[p][a & 3]++] = (1 << (a >> 2)) | (1 << (b >> 2));
            }
    }
    int kbc[4] = {0}, kbm[4] = {0};
    for (int i = 0; i < nb; i++) {
        kbc[s->board[i] & 3]++;
        kbm[s->board[i] & 3] |= 1 << (s->board[i] >> 2);
    }
    int need = s->omaha ? 2 : 0; /* Omaha: two suited hole cards and three board cards */
    if (m <= 2) {
        /* Flop, turn, river: group the boards by the ranks dealt (91, 13 or 1 groups),
         * each group's non-flush outcome counted once with its number of boards; then
         * deal one by one only the boards on which somebody may make a flush, and move
         * their share from the non-flush outcome to the real one. */
        int avail[13] = {0}, savail[4] = {0};
        for (int i = 0; i < n; i++) { avail[deck[i] >> 2]++; savail[deck[i] & 3]++; }
        int v[MAXP];
        for (int b = 0; b < (m ? 13 : 1); b++)
            for (int a = 0; a <= (m == 2 ? b : 0); a++) {
                int64_t w;
                int di;
                if (m == 0) { w = 1; di = 0; }
                else if (m == 1) { w = avail[b]; di = b; }
                else { w = a == b ? avail[a] * (avail[a] - 1) / 2 : avail[a] * avail[b];
                       di = CK[1][a] + CK[2][b + 1]; }
                if (!w) continue;
                for (int p = 0; p < P; p++) v[p] = nf[p * size + di];
                payout(v, P, w, acc);
            }
        for (int q = 0; q < 4; q++) {
            int most = m < savail[q] ? m : savail[q];
            if (kbc[q] + most < 3) continue; /* no board of three of the suit */
            int can = 0;
            for (int p = 0; p < P; p++)
                if (s->omaha ? nsp[p][q] > 0 : kbc[q] + most + hsc[p][q] >= 5) can = 1;
            if (!can) continue;
            int sc[52], nsc = 0;
            for (int i = 0; i < n; i++) sc[nsc++] = deck[i];
            int memo_key[MAXP][128], memo_val[MAXP][128];
            if (s->omaha) memset(memo_key, 0xff, sizeof memo_key);
            for (int i = 0; i < (m ? n : 1); i++)
                for (int j = (m == 2 ? i + 1 : 0); j < (m == 2 ? n : 1); j++) {
                    int c1 = m ? sc[i] : -1, c2 = m == 2 ? sc[j] : -1;
                    int dealt = (c1 >= 0 && (c1 & 3) == q) + (c2 >= 0 && (c2 & 3) == q);
                    int cnt = kbc[q] + dealt;
                    if (cnt < 3) continue;
                    int bmq = kbm[q] | (dealt && (c1 & 3) == q ? 1 << (c1 >> 2) : 0)
                              | (c2 >= 0 && (c2 & 3) == q ? 1 << (c2 >> 2) : 0);
                    int di = m == 0 ? 0 : m == 1 ? (c1 >> 2)
                           : CK[1][c1 >> 2] + CK[2][(c2 >> 2) + 1];
                    int changed = 0, real[MAXP];
                    for (int p = 0; p < P; p++) {
                        int x = nf[p * size + di];
                        v[p] = x;
                        if (!s->omaha) {
                            if (cnt + hsc[p][q] >= 5) {
                                int f = FLUSH[bmq | hmask[p][q]];
                                if (f > x) { x = f; changed = 1; }
                            }
                        } else if (nsp[p][q]) {
                            /* the same suited board comes back on many boards: remember
                             * each player's flush for it (at most 92 masks on the flop) */
                            unsigned h = ((unsigned)bmq * 2654435761u) >> 25;
                            while (memo_key[p][h] >= 0 && memo_key[p][h] != bmq) h = (h + 1) & 127;
                            if (memo_key[p][h] < 0) {
                                int f = 0;
                                for (int k = 0; k < nsp[p][q]; k++) {
                                    int y = omaha_flush(spairs[p][q][k], bmq);
                                    if (y > f) f = y;
                                }
                                memo_key[p][h] = bmq;
                                memo_val[p][h] = f;
                            }
                            if (memo_val[p][h] > x) { x = memo_val[p][h]; changed = 1; }
                        }
                        real[p] = x;
                    }
                    if (changed) {
                        payout(v, P, -1, acc);
                        payout(real, P, 1, acc);
                    }
                }
        }
        if (nf != small) free(nf);
        *total = m == 0 ? 1 : m == 1 ? n : (int64_t)n * (n - 1) / 2;
        return 0;
    }
    return 0; /* not reached: m <= 2 returned above */
}

/* ------------------------------------------------------------------ input */

static int rank_of(int ch) {
    static const char *R = "23456789TJQKA";
    if (ch >= 'a' && ch <= 'z') ch -= 32;
    for (int i = 0; i < 13; i++) if (R[i] == ch) return i;
    return -1;
}

static int suit_of(int ch) {
    switch (ch) {
        case 'c': case 'C': return 0;
        case 'd': case 'D': return 1;
        case 'h': case 'H': return 2;
        case 's': case 'S': return 3;
    }
    return -1;
}

static int two_chars(const char *t) {
    int r = rank_of((unsigned char)t[0]), s = suit_of((unsigned char)t[1]);
    return (r < 0 || s < 0) ? -1 : r * 4 + s;
}

/* Cards of a text such as "Jh 8c 3d" or "AsKs" into out; the count, or -1 when the text
 * is anything the fast path does not read (the Python path then reads it or says why). */
static int read_text(PyObject *o, int *out, int room) {
    Py_ssize_t len;
    const char *t = PyUnicode_AsUTF8AndSize(o, &len);
    if (!t) { PyErr_Clear(); return -1; }
    int n = 0;
    Py_ssize_t i = 0;
    while (i < len) {
        char ch = t[i];
        if (ch == ' ' || ch == ',' || ch == '\t' || ch == '\n' || ch == '\r') { i++; continue; }
        Py_ssize_t j = i;
        while (j < len && t[j] != ' ' && t[j] != ',' && t[j] != '\t' && t[j] != '\n' && t[j] != '\r') j++;
        Py_ssize_t w = j - i;
        if (w != 2 && (w < 4 || w % 2)) return -1;
        for (Py_ssize_t k = i; k < j; k += 2) {
            int c = two_chars(t + k);
            if (c < 0 || n >= room) return -1;
            out[n++] = c;
        }
        i = j;
    }
    return n;
}

static int read_cards(PyObject *o, int *out, int room) {
    if (PyUnicode_Check(o)) return read_text(o, out, room);
    if (!PyList_Check(o) && !PyTuple_Check(o)) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    if (n > room) return -1;
    PyObject **items = PySequence_Fast_ITEMS(o);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = items[i];
        if (PyUnicode_Check(x)) {
            Py_ssize_t len;
            const char *t = PyUnicode_AsUTF8AndSize(x, &len);
            if (!t) { PyErr_Clear(); return -1; }
            if (len != 2) return -1;
            int c = two_chars(t);
            if (c < 0) return -1;
            out[i] = c;
        } else if (card_type && Py_TYPE(x) == (PyTypeObject *)card_type) {
            PyObject *rk = PyObject_GetAttrString(x, "rank");
            PyObject *st = PyObject_GetAttrString(x, "suit");
            int c = -1;
            if (rk && st && PyLong_Check(rk) && PyUnicode_Check(st)) {
                long r = PyLong_AsLong(rk);
                Py_ssize_t sl;
                const char *su = PyUnicode_AsUTF8AndSize(st, &sl);
                int s = (su && sl == 1 && su[0] >= 'a') ? suit_of((unsigned char)su[0]) : -1;
                if (r >= 2 && r <= 14 && s >= 0) c = (int)(r - 2) * 4 + s;
            }
            Py_XDECREF(rk);
            Py_XDECREF(st);
            if (PyErr_Occurred()) PyErr_Clear();
            if (c < 0) return -1;
            out[i] = c;
        } else {
            return -1;
        }
    }
    return (int)n;
}

/* Parse a question in the forms equity() is usually given; 0 when read, -1 when the
 * Python path must read it (any other form, or anything it would refuse). */
static int read_spot(PyObject *holes, PyObject *board, PyObject *dead, PyObject *game,
                     spot_t *s) {
    int want = 0; /* 0: detect from the hole cards */
    if (game != Py_None) {
        if (!PyUnicode_Check(game)) return -1;
        if (PyUnicode_CompareWithASCIIString(game, "holdem") == 0) want = 2;
        else if (PyUnicode_CompareWithASCIIString(game, "omaha") == 0) want = 4;
        else return -1;
    }
    if (!PyList_Check(holes) && !PyTuple_Check(holes)) return -1;
    Py_ssize_t P = PySequence_Fast_GET_SIZE(holes);
    if (P < 2 || P > MAXP) return -1;
    PyObject **hs = PySequence_Fast_ITEMS(holes);
    int hc = -1;
    for (Py_ssize_t p = 0; p < P; p++) {
        int got = read_cards(hs[p], s->hole[p], 4);
        if (got != 2 && got != 4) return -1;
        if (hc >= 0 && got != hc) return -1;
        hc = got;
    }
    if (want && hc != want) return -1;
    s->omaha = hc == 4;
    s->players = (int)P;
    s->nb = read_cards(board, s->board, 5);
    if (s->nb < 0) return -1;
    s->nd = read_cards(dead, s->dead, 52);
    if (s->nd < 0) return -1;
    uint64_t seen = 0;
    int count = 0;
    for (int p = 0; p < P; p++)
        for (int i = 0; i < hc; i++) { seen |= 1ULL << s->hole[p][i]; count++; }
    for (int i = 0; i < s->nb; i++) { seen |= 1ULL << s->board[i]; count++; }
    for (int i = 0; i < s->nd; i++) { seen |= 1ULL << s->dead[i]; count++; }
    if (__builtin_popcountll(seen) != count) return -1; /* a card twice (G-5) */
    if (52 - count < 5 - s->nb) return -1;
    return 0;
}

static PyObject *shares(const spot_t *s, int64_t *acc, int64_t total) {
    PyObject *out = PyList_New(s->players);
    if (!out) return NULL;
    double denom = (double)(total * UNITS);
    for (int p = 0; p < s->players; p++) {
        PyObject *f = PyFloat_FromDouble((double)acc[p] / denom);
        if (!f) { Py_DECREF(out); return NULL; }
        PyList_SET_ITEM(out, p, f);
    }
    return out;
}

static PyObject *py_equity(PyObject *self, PyObject *args) {
    PyObject *holes, *board, *dead, *game;
    long most;
    if (!PyArg_ParseTuple(args, "OOOOl", &holes, &board, &dead, &game, &most)) return NULL;
    spot_t s;
    if (!ready || read_spot(holes, board, dead, game, &s) < 0 || 5 - s.nb > most)
        Py_RETURN_NONE;
    int64_t acc[MAXP], total;
    int rc = count_spot(&s, acc, &total);
    if (rc == -2) return PyErr_NoMemory();
    if (rc < 0) Py_RETURN_NONE;
    return shares(&s, acc, total);
}

static PyObject *py_units(PyObject *self, PyObject *args) {
    PyObject *holes, *board, *dead;
    int omaha;
    if (!PyArg_ParseTuple(args, "OOOp", &holes, &board, &dead, &omaha)) return NULL;
    if (!ready) { PyErr_SetString(PyExc_RuntimeError, "setup() first"); return NULL; }
    spot_t s;
    memset(&s, 0, sizeof s);
    s.omaha = omaha;
    int hc = omaha ? 4 : 2;
    PyObject *hs = PySequence_Fast(holes, "holes");
    if (!hs) return NULL;
    Py_ssize_t P = PySequence_Fast_GET_SIZE(hs);
    if (P < 2 || P > MAXP) { Py_DECREF(hs); PyErr_SetString(PyExc_ValueError, "2..10 players"); return NULL; }
    s.players = (int)P;
    for (Py_ssize_t p = 0; p < P; p++) {
        PyObject *h = PySequence_Fast(PySequence_Fast_GET_ITEM(hs, p), "hole");
        if (!h) { Py_DECREF(hs); return NULL; }
        if (PySequence_Fast_GET_SIZE(h) != hc) {
            Py_DECREF(h); Py_DECREF(hs);
            PyErr_SetString(PyExc_ValueError, "hole card count");
            return NULL;
        }
        for (int i = 0; i < hc; i++) s.hole[p][i] = (int)PyLong_AsLong(PySequence_Fast_GET_ITEM(h, i));
        Py_DECREF(h);
    }
    Py_DECREF(hs);
    PyObject *lists[2] = {board, dead};
    int *outs[2] = {s.board, s.dead}, rooms[2] = {5, 52}, counts[2];
    for (int k = 0; k < 2; k++) {
        PyObject *f = PySequence_Fast(lists[k], "cards");
        if (!f) return NULL;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(f);
        if (n > rooms[k]) { Py_DECREF(f); PyErr_SetString(PyExc_ValueError, "too many cards"); return NULL; }
        for (Py_ssize_t i = 0; i < n; i++) outs[k][i] = (int)PyLong_AsLong(PySequence_Fast_GET_ITEM(f, i));
        counts[k] = (int)n;
        Py_DECREF(f);
    }
    if (PyErr_Occurred()) return NULL;
    s.nb = counts[0];
    s.nd = counts[1];
    uint64_t seen = 0;
    int count = 0;
    for (int p = 0; p < s.players; p++)
        for (int i = 0; i < hc; i++) { seen |= 1ULL << (s.hole[p][i] & 63); count++; if (s.hole[p][i] < 0 || s.hole[p][i] > 51) count = -999; }
    for (int i = 0; i < s.nb; i++) { seen |= 1ULL << (s.board[i] & 63); count++; if (s.board[i] < 0 || s.board[i] > 51) count = -999; }
    for (int i = 0; i < s.nd; i++) { seen |= 1ULL << (s.dead[i] & 63); count++; if (s.dead[i] < 0 || s.dead[i] > 51) count = -999; }
    if (count < 0 || __builtin_popcountll(seen) != count) {
        PyErr_SetString(PyExc_ValueError, "G-5: cards must be distinct indices 0..51");
        return NULL;
    }
    int64_t acc[MAXP], total = 0;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = count_spot(&s, acc, &total);
    Py_END_ALLOW_THREADS
    if (rc == -2) return PyErr_NoMemory();
    if (rc < 0) { PyErr_SetString(PyExc_ValueError, "G-5: not enough cards left to deal the board"); return NULL; }
    PyObject *t = PyTuple_New(s.players);
    if (!t) return NULL;
    for (int p = 0; p < s.players; p++) PyTuple_SET_ITEM(t, p, PyLong_FromLongLong(acc[p]));
    return Py_BuildValue("(NL)", t, (long long)total);
}

static PyMethodDef methods[] = {
    {"setup", py_setup, METH_VARARGS,
     "setup(nf5: bytes, flush: bytes, card_type) -> None: the evaluator's tables (int16 "
     "native order): nf5 by colex index of the sorted five-rank multiset (6,188), flush by "
     "13-bit suit mask (8,192)."},
    {"equity", py_equity, METH_VARARGS,
     "equity(hole_cards, board, dead, game, most) -> list[float] | None: the shares when the "
     "question is in a usual form, valid, and leaves at most `most` board cards to deal; "
     "None otherwise (the Python path then answers or raises)."},
    {"units", py_units, METH_VARARGS,
     "units(holes, board, dead, omaha) -> (tuple[int], boards): card indices 0..51 in, each "
     "player's pot share in units of 1/2520 summed over every board out. Raises ValueError."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_equity_c",
                                    "Exact all-in equity in C (see equity.py).", -1, methods};

PyMODINIT_FUNC PyInit__equity_c(void) { return PyModule_Create(&module); }
