// SPDX-License-Identifier: Apache-2.0
// gdn_bench: time gradyn against MuJoCo 2.2.2 in one run (markdown table), or count calls.
//
//   gdn_bench [--batches N] [--ms T] [--states S] [--seed X] [--model NAME=PATH]...
//             [--rows a,b,...] [--source xml|mujoco]
//       for each model and row: check that both engines agree, then B batches of K calls per
//       engine, interleaved engine by engine (the order alternates per batch), K chosen so a
//       batch lasts about T ms; per-call time = median over batches. Prints a markdown table.
//   gdn_bench --count MODEL/ROW/ENGINE N [--model NAME=PATH]...
//       load MODEL only and run N calls of one kernel (for callgrind: difference N=0, N=1000)
//   gdn_bench --list
//       print every MODEL/ROW/ENGINE name (the derivative kernels included)
//   --deriv 0|1|only: the issue-3 tables after the main one (default 1; derivative.c): adjoint
//       vs forward rollout, transition Jacobians vs mjd_transitionFD
//   --contact 0|1|only: the issue-4 contact-step table (default 1; contact.c): gdn_step vs mj_step
//       rollouts with contacts on, mean Newton iterations of both; --contact-steps N (1000)
//   --cnstr 0|1|only: the issue-9 tables (default 1; constrained.c): the constrained adjoint vs
//       the forward rollout on humanoid.xml falling onto its floor, exact A, B through the
//       constrained step vs mjd_transitionFD at states with contacts, per-step derivative cost
//   --kamino 0|1|only: the issue-10 table (default 1; kamino.c): gdn_kamino_step vs mj_step on
//       the same closed-loop mechanisms and a contact scene, PADMM iterations per step;
//       --kamino-steps N (500): the timed window after 0.2 s
//   --integ 0|1|only: the issue-12 integrator tables (default 1; integrator.c): gdn_step vs
//       mj_step under Euler and RK4, and the trajectory adjoint's cost under RK4;
//       --integ-steps N (500): their rollout length
//   --batch 0|1|only: the issue-11 table (default 1; batch.c): gdn_rollout_batch and
//       gdn_adjoint_batch on 1 and 2 threads vs mj_step run as mujoco.rollout runs it (run it
//       unpinned: bench/run.sh does)
//   --source mujoco: gradyn's model is a copy of MuJoCo's compiled model instead of gradyn's own
//       MJCF loader's (same dynamics, isolates the loader)
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "batch.h"
#include "check.h"
#include "constrained.h"
#include "contact.h"
#include "derivative.h"
#include "integrator.h"
#include "kamino.h"
#include "rows.h"
#include "timer.h"

#ifndef GDN_TEST_MODELS
#    define GDN_TEST_MODELS "tests/models"
#endif
#ifndef GDN_MUJOCO_MODELS
#    define GDN_MUJOCO_MODELS "/usr/share/mujoco/model"
#endif
#ifndef GDN_BENCH_BUILD
#    define GDN_BENCH_BUILD "unknown"
#endif

#define MAX_MODELS 16

typedef struct benchModelSpec {
    char name[64];
    char path[1024];
} benchModelSpec;

typedef struct benchOptions {
    int batches;            // timed batches per engine
    double batch_seconds;   // target duration of one batch
    int nstates;            // random states cycled through by the calls
    unsigned long long seed;
    const char* rows;       // comma-separated row filter (NULL: all)
    const char* count_name; // --count MODEL/ROW/ENGINE
    long count_calls;
    int list;
    int deriv;              // 0: main table only, 1: both, 2: derivative tables only
    int contact;            // contact-step table: 0 no, 1 after the others, 2 only it
    int contact_steps;      // rollout length of the contact table
    int cnstr;              // issue-9 tables: 0 no, 1 after the others, 2 only them
    int kamino;             // issue-10 table: 0 no, 1 after the others, 2 only it
    int kamino_steps;       // its timed window (steps after 0.2 s)
    int batch;              // issue-11 table: 0 no, 1 after the others, 2 only it
    int integ;              // issue-12 integrator tables: 0 no, 1 after the others, 2 only them
    int integ_steps;        // their rollout length
    benchSource source;     // gradyn's own loader or a copy of MuJoCo's compiled model
    int nmodels;
    benchModelSpec models[MAX_MODELS];
} benchOptions;

// MuJoCo warnings (e.g. an unstable state reset): counted, reported under the table
static int mujoco_warnings = 0;
static void count_mujoco_warning(const char* msg) {
    (void)msg;
    mujoco_warnings++;
}

// the default models: MuJoCo's humanoid and two of ours
static void default_models(benchOptions* o) {
    const char* names[3] = {"humanoid", "humanoid32", "arm7"};
    const char* paths[3] = {GDN_MUJOCO_MODELS "/humanoid/humanoid.xml",
                            GDN_TEST_MODELS "/humanoid32.xml", GDN_TEST_MODELS "/arm7.xml"};
    o->nmodels = 3;
    for (int i = 0; i < 3; i++) {
        snprintf(o->models[i].name, sizeof(o->models[i].name), "%s", names[i]);
        snprintf(o->models[i].path, sizeof(o->models[i].path), "%s", paths[i]);
    }
}

static int usage(void) {
    fprintf(stderr, "usage: gdn_bench [--batches N] [--ms T] [--states S] [--seed X] "
                    "[--model NAME=PATH]... [--rows a,b] [--source xml|mujoco] [--deriv 0|1|only]\n"
                    "                 [--contact 0|1|only] [--contact-steps N] [--cnstr 0|1|only]\n"
                    "                 [--kamino 0|1|only] [--kamino-steps N] [--batch 0|1|only]\n"
                    "                 [--integ 0|1|only] [--integ-steps N]\n"
                    "       gdn_bench --count MODEL/ROW/ENGINE N [--model NAME=PATH]...\n"
                    "       gdn_bench --list\n");
    return 2;
}

// parse the command line; 0 on success
static int parse_options(int argc, char** argv, benchOptions* o) {
    int user_models = 0;
    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        int has_value = i + 1 < argc;
        if (!strcmp(a, "--batches") && has_value) {
            o->batches = atoi(argv[++i]);
        } else if (!strcmp(a, "--ms") && has_value) {
            o->batch_seconds = 1e-3 * atof(argv[++i]);
        } else if (!strcmp(a, "--states") && has_value) {
            o->nstates = atoi(argv[++i]);
        } else if (!strcmp(a, "--seed") && has_value) {
            o->seed = strtoull(argv[++i], NULL, 10);
        } else if (!strcmp(a, "--rows") && has_value) {
            o->rows = argv[++i];
        } else if (!strcmp(a, "--count") && i + 2 < argc) {
            o->count_name = argv[++i];
            o->count_calls = atol(argv[++i]);
        } else if (!strcmp(a, "--source") && has_value) {
            const char* v = argv[++i];
            if (!strcmp(v, "xml")) {
                o->source = BENCH_SOURCE_XML;
            } else if (!strcmp(v, "mujoco")) {
                o->source = BENCH_SOURCE_MUJOCO;
            } else {
                return -1;
            }
        } else if (!strcmp(a, "--deriv") && has_value) {
            const char* v = argv[++i];
            o->deriv = !strcmp(v, "only") ? 2 : atoi(v) != 0;
        } else if (!strcmp(a, "--contact") && has_value) {
            const char* v = argv[++i];
            o->contact = !strcmp(v, "only") ? 2 : atoi(v) != 0;
        } else if (!strcmp(a, "--cnstr") && has_value) {
            const char* v = argv[++i];
            o->cnstr = !strcmp(v, "only") ? 2 : atoi(v) != 0;
        } else if (!strcmp(a, "--kamino") && has_value) {
            const char* v = argv[++i];
            o->kamino = !strcmp(v, "only") ? 2 : atoi(v) != 0;
        } else if (!strcmp(a, "--batch") && has_value) {
            const char* v = argv[++i];
            o->batch = !strcmp(v, "only") ? 2 : atoi(v) != 0;
        } else if (!strcmp(a, "--integ") && has_value) {
            const char* v = argv[++i];
            o->integ = !strcmp(v, "only") ? 2 : atoi(v) != 0;
        } else if (!strcmp(a, "--integ-steps") && has_value) {
            o->integ_steps = atoi(argv[++i]);
        } else if (!strcmp(a, "--kamino-steps") && has_value) {
            o->kamino_steps = atoi(argv[++i]);
        } else if (!strcmp(a, "--contact-steps") && has_value) {
            o->contact_steps = atoi(argv[++i]);
        } else if (!strcmp(a, "--list")) {
            o->list = 1;
        } else if (!strcmp(a, "--model") && has_value) {
            const char* spec = argv[++i];
            const char* eq = strchr(spec, '=');
            if (!eq || user_models >= MAX_MODELS) {
                return -1;
            }
            benchModelSpec* ms = &o->models[user_models++];
            snprintf(ms->name, sizeof(ms->name), "%.*s", (int)(eq - spec), spec);
            snprintf(ms->path, sizeof(ms->path), "%s", eq + 1);
            o->nmodels = user_models;
        } else {
            return -1;
        }
    }
    if (o->batches < 1 || o->batch_seconds <= 0.0 || o->nstates < 1 || o->count_calls < 0 ||
        o->contact_steps < 100 || o->kamino_steps < 1) {
        return -1;
    }
    return 0;
}

// is row name in the comma-separated list (NULL: every row)?
static int row_selected(const char* list, const char* name) {
    if (!list) {
        return 1;
    }
    size_t n = strlen(name);
    for (const char* p = list; *p;) {
        const char* end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && !strncmp(p, name, n)) {
            return 1;
        }
        p += len + (end ? 1 : 0);
    }
    return 0;
}

// seconds for n calls of kernel, cycling through the random states
static double time_calls(benchKernel* kernel, benchModel* bm, long n) {
    double t0 = bench_now();
    for (long i = 0; i < n; i++) {
        kernel(bm, (int)(i % bm->nstates));
    }
    return bench_now() - t0;
}

// calls per batch so that one batch lasts about target seconds (after a warm-up)
static long calls_per_batch(benchKernel* kernel, benchModel* bm, double target) {
    time_calls(kernel, bm, bm->nstates);
    long n = 1;
    double t = time_calls(kernel, bm, n);
    while (t < target / 8 && n < (1L << 30)) {
        n *= 2;
        t = time_calls(kernel, bm, n);
    }
    long k = (long)ceil((double)n * target / fmax(t, 1e-9));
    return k < 1 ? 1 : k;
}

// the median per-call time (seconds) of each engine and the relative spread (IQR / median)
typedef struct benchResult {
    double median[2];
    double spread[2];
} benchResult;

// time one row: batches interleaved engine by engine, alternating which engine goes first
static benchResult time_row(benchModel* bm, const benchRow* row, const benchOptions* o) {
    benchKernel* kernels[2] = {row->run_gradyn, row->run_mujoco};
    long calls[2];
    for (int e = 0; e < 2; e++) {
        calls[e] = calls_per_batch(kernels[e], bm, o->batch_seconds);
    }
    double* samples[2];
    samples[0] = malloc(sizeof(double) * (size_t)o->batches);
    samples[1] = malloc(sizeof(double) * (size_t)o->batches);
    benchResult r = {{NAN, NAN}, {NAN, NAN}};
    if (!samples[0] || !samples[1]) {
        free(samples[0]);
        free(samples[1]);
        return r;
    }
    for (int b = 0; b < o->batches; b++) {
        for (int k = 0; k < 2; k++) {
            int e = (b + k) % 2;
            samples[e][b] = time_calls(kernels[e], bm, calls[e]) / (double)calls[e];
        }
    }
    for (int e = 0; e < 2; e++) {
        r.median[e] = bench_median(samples[e], o->batches);
        double iqr = bench_quantile_sorted(samples[e], o->batches, 0.75) -
                     bench_quantile_sorted(samples[e], o->batches, 0.25);
        r.spread[e] = iqr / r.median[e];
    }
    free(samples[0]);
    free(samples[1]);
    return r;
}

// the table's preamble: date, machine, build, method
static void print_header(const benchOptions* o) {
    char date[64] = "?", host[256] = "?", cpu[600] = "?";
    time_t now = time(NULL);
    strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&now));
    gethostname(host, sizeof(host));
    host[sizeof(host) - 1] = '\0';
    FILE* f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof(line), f)) {
            if (!strncmp(line, "model name", 10)) {
                const char* colon = strchr(line, ':');
                snprintf(cpu, sizeof(cpu), "%s", colon ? colon + 2 : line);
                cpu[strcspn(cpu, "\n")] = '\0';
                break;
            }
        }
        fclose(f);
    }
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    printf("gradyn %s vs MuJoCo %s, %s, %s (%s, %ld cores visible)\n", GDN_VERSION_STRING,
           mj_versionString(), date, host, cpu, ncpu);
    printf("gradyn model from %s\n", o->source == BENCH_SOURCE_MUJOCO
                                          ? "a copy of MuJoCo's compiled model (--source mujoco)"
                                          : "gradyn's MJCF loader");
    printf("build: %s; constraints disabled in both engines; %d batches x ~%.0f ms per engine, "
           "interleaved; %d random states; median per-call time\n\n", GDN_BENCH_BUILD,
           o->batches, 1e3 * o->batch_seconds, o->nstates);
    printf("| model | nv | row | gradyn µs | MuJoCo µs | gradyn/MuJoCo | spread | agree |\n");
    printf("|---|---:|---|---:|---:|---:|---:|---:|\n");
}

// the full table: every model and selected row
static int run_table(const benchOptions* o) {
    print_header(o);
    int failures = 0;
    for (int i = 0; i < o->nmodels; i++) {
        benchModel bm;
        char err[2048];
        if (bench_model_load(&bm, o->models[i].name, o->models[i].path, o->source, o->nstates,
                             o->seed, err, (int)sizeof(err))) {
            printf("| %s | | (not loaded: %s) | | | | | |\n", o->models[i].name, err);
            failures++;
            continue;
        }
        for (int r = 0; r < bench_nrows; r++) {
            const benchRow* row = &bench_rows[r];
            if (!row_selected(o->rows, row->name)) {
                continue;
            }
            double agree = bench_row_agreement(&bm, row);
            benchResult t = time_row(&bm, row, o);
            printf("| %s | %d | %s | %.3f | %.3f | %.2f | %.0f%% | %.0e |\n", bm.name, bm.nv,
                   row->name, 1e6 * t.median[0], 1e6 * t.median[1], t.median[0] / t.median[1],
                   100.0 * fmax(t.spread[0], t.spread[1]), agree);
            fflush(stdout);
        }
        bench_model_free(&bm);
    }
    printf("\nrows (both sides start from a raw state copied into the engine's data):\n");
    for (int r = 0; r < bench_nrows; r++) {
        printf("- %s: gradyn %s; MuJoCo %s\n", bench_rows[r].name, bench_rows[r].gradyn,
               bench_rows[r].mujoco);
    }
    printf("- spread: the larger interquartile range / median of the two engines' batches\n"
           "- agree: worst ||gradyn - MuJoCo||_inf / max(||MuJoCo||_inf, 1) of the row's output "
           "over the random states\n");
    if (mujoco_warnings) {
        printf("\nMuJoCo warnings during the run: %d\n", mujoco_warnings);
    }
    return failures ? 1 : 0;
}

// --count for a derivative kernel: MODEL one of the derivative models
static int run_count_deriv(const benchOptions* o, const char* model, const char* name,
                           int mujoco) {
    const benchDerivKernel* kernel = NULL;
    for (int k = 0; k < bench_nderiv_kernels; k++) {
        if (!strcmp(bench_deriv_kernels[k].name, name) && bench_deriv_kernels[k].mujoco == mujoco) {
            kernel = &bench_deriv_kernels[k];
        }
    }
    int mi = -1;
    for (int i = 0; i < bench_nderiv_models; i++) {
        if (!strcmp(bench_deriv_model_names[i], model)) {
            mi = i;
        }
    }
    if (!kernel || mi < 0) {
        fprintf(stderr, "gdn_bench: unknown model, row or engine in %s\n", o->count_name);
        return 2;
    }
    benchModel bm;
    char err[2048];
    if (bench_model_load(&bm, model, bench_deriv_model_paths[mi], o->source, o->nstates, o->seed,
                         err, (int)sizeof(err)) || bench_deriv_setup(&bm, err, (int)sizeof(err))) {
        fprintf(stderr, "gdn_bench: %s\n", err);
        return 1;
    }
    for (long i = 0; i < o->count_calls; i++) {
        kernel->run(&bm, (int)(i % bm.nstates));
    }
    bench_model_free(&bm);
    return 0;
}

// --count MODEL/ROW/ENGINE N: N calls of one kernel, nothing else timed or printed
static int run_count(const benchOptions* o) {
    char model[128], row_name[128], engine[128];
    if (sscanf(o->count_name, "%127[^/]/%127[^/]/%127s", model, row_name, engine) != 3) {
        fprintf(stderr, "gdn_bench: --count wants MODEL/ROW/ENGINE, got %s\n", o->count_name);
        return 2;
    }
    const benchModelSpec* spec = NULL;
    for (int i = 0; i < o->nmodels; i++) {
        if (!strcmp(o->models[i].name, model)) {
            spec = &o->models[i];
        }
    }
    const benchRow* row = NULL;
    for (int r = 0; r < bench_nrows; r++) {
        if (!strcmp(bench_rows[r].name, row_name)) {
            row = &bench_rows[r];
        }
    }
    int is_gradyn = !strcmp(engine, "gradyn"), is_mujoco = !strcmp(engine, "mujoco");
    if (!row && !is_gradyn && !is_mujoco) {
        fprintf(stderr, "gdn_bench: unknown engine in %s (gradyn or mujoco)\n", o->count_name);
        return 2;
    }
    if (!row) {
        int sk = bench_kamino_count(model, row_name, is_mujoco, o->count_calls);
        if (sk != 2) {
            return sk;
        }
        int st = bench_cnstr_count(model, row_name, is_mujoco, o->count_calls);
        return st != 2 ? st : run_count_deriv(o, model, row_name, is_mujoco);
    }
    if (!spec || !row || (!is_gradyn && !is_mujoco)) {
        fprintf(stderr, "gdn_bench: unknown model, row or engine in %s\n", o->count_name);
        return 2;
    }
    benchModel bm;
    char err[2048];
    if (bench_model_load(&bm, spec->name, spec->path, o->source, o->nstates, o->seed, err,
                         (int)sizeof(err))) {
        fprintf(stderr, "gdn_bench: %s\n", err);
        return 1;
    }
    benchKernel* kernel = is_gradyn ? row->run_gradyn : row->run_mujoco;
    for (long i = 0; i < o->count_calls; i++) {
        kernel(&bm, (int)(i % bm.nstates));
    }
    bench_model_free(&bm);
    return 0;
}

int main(int argc, char** argv) {
    benchOptions o;
    memset(&o, 0, sizeof(o));
    o.batches = 15;
    o.batch_seconds = 0.020;
    o.nstates = 16;
    o.seed = 12345;
    o.deriv = 1;
    o.contact = 1;
    o.contact_steps = 1000;
    o.cnstr = 1;
    o.kamino = 1;
    o.kamino_steps = 500;
    o.batch = 1;
    o.integ = 1;
    o.integ_steps = 500;
    default_models(&o);
    if (parse_options(argc, argv, &o)) {
        return usage();
    }
    mju_user_warning = count_mujoco_warning;
    if (o.list) {
        for (int i = 0; i < o.nmodels; i++) {
            for (int r = 0; r < bench_nrows; r++) {
                printf("%s/%s/gradyn\n%s/%s/mujoco\n", o.models[i].name, bench_rows[r].name,
                       o.models[i].name, bench_rows[r].name);
            }
        }
        for (int i = 0; i < bench_nderiv_models; i++) {
            for (int k = 0; k < bench_nderiv_kernels; k++) {
                printf("%s/%s/%s\n", bench_deriv_model_names[i], bench_deriv_kernels[k].name,
                       bench_deriv_kernels[k].mujoco ? "mujoco" : "gradyn");
            }
        }
        bench_cnstr_list();
        bench_kamino_list();
        return 0;
    }
    if (o.count_name) {
        return run_count(&o);
    }
    if (o.batch == 2) {
        return bench_batch_table(o.batches) ? 1 : 0;
    }
    if (o.integ == 2) {
        return bench_integrator_table(o.batches, o.integ_steps) ? 1 : 0;
    }
    if (o.kamino == 2) {
        return bench_kamino_table(o.batches, o.batch_seconds, o.kamino_steps) ? 1 : 0;
    }
    if (o.cnstr == 2) {
        return bench_cnstr_tables(o.batches, o.batch_seconds) ? 1 : 0;
    }
    if (o.contact == 2) {
        return bench_contact_table(o.batches, o.contact_steps) ? 1 : 0;
    }
    int failures = o.deriv == 2 ? 0 : run_table(&o);
    if (o.deriv) {
        failures += bench_deriv_tables(o.batches, o.batch_seconds, o.nstates, o.seed);
    }
    if (o.contact) {
        failures += bench_contact_table(o.batches, o.contact_steps);
    }
    if (o.cnstr) {
        failures += bench_cnstr_tables(o.batches, o.batch_seconds);
    }
    if (o.kamino) {
        failures += bench_kamino_table(o.batches, o.batch_seconds, o.kamino_steps);
    }
    if (o.integ) {
        failures += bench_integrator_table(o.batches, o.integ_steps);
    }
    if (o.batch) {
        failures += bench_batch_table(o.batches);
    }
    return failures ? 1 : 0;
}
