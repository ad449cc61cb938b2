/*
 * Exact all-in equity by brute force with phevaluator's own C evaluator: the native
 * anchor of bench/bench_equity.py (issue 21). Built at bench time against the C
 * sources of the installed phevaluator version (its sdist's _pheval_csrc/src); never
 * committed built.
 *
 * Every completion of the board is dealt; each player is ranked with
 * evaluate_7cards (Hold'em) or evaluate_plo4_cards (Omaha: two hole + three board,
 * phevaluator's fast PLO4 evaluator); the pot is split among the best (lower is
 * better in phevaluator). Shares are counted in units of 1/2520 (lcm 1..10) so the
 * result is exact and can be compared with livetable's integer units.
 */
#include <stdint.h>
#include <time.h>

int evaluate_7cards(int a, int b, int c, int d, int e, int f, int g);
int evaluate_plo4_cards(int c1, int c2, int c3, int c4, int c5, int h1, int h2, int h3, int h4);

static void one_spot(int omaha, int players, const int *holes, int nboard, const int *board,
                     int64_t *acc, int64_t *boards_out) {
    int hc = omaha ? 4 : 2;
    int used[52] = {0};
    int deck[52], n = 0, i, p;
    for (i = 0; i < players * hc; i++) used[holes[i]] = 1;
    for (i = 0; i < nboard; i++) used[board[i]] = 1;
    for (i = 0; i < 52; i++) if (!used[i]) deck[n++] = i;
    int m = 5 - nboard;
    int idx[5], b[5], v[10];
    for (i = 0; i < nboard; i++) b[i] = board[i];
    for (i = 0; i < m; i++) idx[i] = i;
    for (p = 0; p < players; p++) acc[p] = 0;
    int64_t boards = 0;
    if (m > n) { *boards_out = 0; return; }
    for (;;) {
        for (i = 0; i < m; i++) b[nboard + i] = deck[idx[i]];
        int best = 1 << 30, k = 0;
        for (p = 0; p < players; p++) {
            const int *h = holes + p * hc;
            int r = omaha ? evaluate_plo4_cards(b[0], b[1], b[2], b[3], b[4], h[0], h[1], h[2], h[3])
                          : evaluate_7cards(b[0], b[1], b[2], b[3], b[4], h[0], h[1]);
            v[p] = r;
            if (r < best) { best = r; k = 1; } else if (r == best) k++;
        }
        int share = 2520 / k;
        for (p = 0; p < players; p++) if (v[p] == best) acc[p] += share;
        boards++;
        /* next combination of m of the n deck cards */
        for (i = m - 1; i >= 0 && idx[i] == n - m + i; i--) ;
        if (i < 0) break;
        idx[i]++;
        for (int j = i + 1; j < m; j++) idx[j] = idx[j - 1] + 1;
    }
    *boards_out = boards;
}

/* Run every spot once; return the CPU seconds of this thread spent (inside C only). */
double run_spots(int omaha, int players, int nspots, const int *holes, int nboard,
                 const int *boards, int64_t *acc, int64_t *totals) {
    struct timespec t0, t1;
    int hc = omaha ? 4 : 2;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    for (int s = 0; s < nspots; s++)
        one_spot(omaha, players, holes + s * players * hc, nboard, boards + s * nboard,
                 acc + s * players, totals + s);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
    return (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
}

/* Native 7-card evaluation rate: evaluate n hands (7 ids each); return CPU seconds. */
double run_7cards(int n, const int *cards, int64_t *checksum) {
    struct timespec t0, t1;
    int64_t sum = 0;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    for (int i = 0; i < n; i++) {
        const int *c = cards + 7 * i;
        sum += evaluate_7cards(c[0], c[1], c[2], c[3], c[4], c[5], c[6]);
    }
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
    *checksum = sum;
    return (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
}
