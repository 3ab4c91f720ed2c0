// SPDX-License-Identifier: Apache-2.0
// simulate's Kamino settings on the command line: the option table over gdnKaminoSettings, its
// parsing, help (defaults read from gdn_kamino_settings_default), model creation and JSON.
#include "kamino_options.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "number_format.h"

// how an option's value is read
typedef enum cliKaminoKind {
    KOPT_REAL = 0,   // a finite number
    KOPT_INT = 1,    // a whole number
    KOPT_SWITCH = 2, // on|off, an int 1|0
    KOPT_BACKEND = 3 // padmm|dvi|lox, a gdnKaminoBackend
} cliKaminoKind;

// one command-line option: the gdnKaminoSettings field it sets (NULL for --tolerance, which
// sets the three tolerances), and the help sentence its default is appended to
typedef struct cliKaminoOption {
    const char* name;
    const char* value;   // the value's placeholder in the help
    const char* field;   // the settings field (and its JSON name)
    size_t offset;       // of the field in gdnKaminoSettings
    cliKaminoKind kind;
    int shared;          // 1: parsed by cli_solver_option (it also sets MuJoCo's solver)
    const char* help;
    const char* default_prefix; // printed before the default ("" for none), NULL: no default
} cliKaminoOption;

#define FIELD(f) #f, offsetof(gdnKaminoSettings, f)

// every field of gdnKaminoSettings, in the order the help lists them
static const cliKaminoOption options[] = {
    {"--backend", "padmm|dvi|lox", FIELD(backend), KOPT_BACKEND, 0,
     "the dual-problem backend; only PADMM is implemented, the library refuses dvi and lox",
     ""},
    {"--iterations", "N", FIELD(max_iterations), KOPT_INT, 1,
     "PADMM's iterations per step at most; a capped solve is reported unconverged", ""},
    {"--tolerance", "T", NULL, 0, KOPT_REAL, 1,
     "sets --tol-primal, --tol-dual and --tol-compl at once (any of the three given as well "
     "wins)", NULL},
    {"--tol-primal", "T", FIELD(tol_primal), KOPT_REAL, 0,
     "the primal residual r_p PADMM stops below, N s", ""},
    {"--tol-dual", "T", FIELD(tol_dual), KOPT_REAL, 0,
     "the dual residual r_d PADMM stops below, m/s", ""},
    {"--tol-compl", "T", FIELD(tol_compl), KOPT_REAL, 0,
     "the complementarity residual r_c PADMM stops below", ""},
    {"--rho", "R", FIELD(rho), KOPT_REAL, 0,
     "the penalty of the unilateral rows (limits, contacts) at the start of each step", ""},
    {"--rho-bilateral", "R", FIELD(rho_bilateral), KOPT_REAL, 0,
     "the penalty of the joint and loop-closure rows: 0 solves them in the linear step "
     "(y = x, z = 0), the value of --rho gives kamino.md's single penalty", ""},
    {"--eta", "E", FIELD(eta), KOPT_REAL, 0, "the proximal term", ""},
    {"--penalty-update", "on|off", FIELD(penalty_update), KOPT_SWITCH, 0,
     "the balanced penalty update of kamino.md 2.4g on the unilateral rows, each change a new "
     "factorization, counted in the status's refactorizations", ""},
    {"--penalty-ratio", "R", FIELD(penalty_ratio), KOPT_REAL, 0,
     "the update changes the penalty when one residual exceeds this multiple of the other",
     ""},
    {"--penalty-factor", "F", FIELD(penalty_factor), KOPT_REAL, 0,
     "the factor of each penalty change", ""},
    {"--rho-min", "R", FIELD(rho_min), KOPT_REAL, 0,
     "the smallest penalty the update goes down to", ""},
    {"--rho-max", "R", FIELD(rho_max), KOPT_REAL, 0,
     "the largest penalty the update goes up to", ""},
    {"--acceleration", "on|off", FIELD(acceleration), KOPT_SWITCH, 0,
     "Nesterov acceleration with restart", ""},
    {"--restart-factor", "F", FIELD(restart_factor), KOPT_REAL, 0,
     "the acceleration extrapolates while the combined residual falls below this fraction of "
     "the previous one, else restarts", ""},
    {"--preconditioning", "on|off", FIELD(preconditioning), KOPT_SWITCH, 0,
     "the diagonal preconditioner of the dual problem", ""},
    {"--warmstart", "on|off", FIELD(warmstart), KOPT_SWITCH, 0,
     "start from the last step's impulses: bilateral rows, limits by joint, contacts by geom "
     "pair and nearest point", ""},
    {"--warmstart-scale", "S", FIELD(warmstart_scale), KOPT_REAL, 0,
     "the fraction of the last step's joint and loop impulses the warm start uses", ""},
    {"--warmstart-scale-unilateral", "S", FIELD(warmstart_scale_unilateral), KOPT_REAL, 0,
     "the same for the limit and contact impulses", ""},
    {"--alpha", "A", FIELD(alpha), KOPT_REAL, 0,
     "the Baumgarte fraction of the joint (bilateral) rows", ""},
    {"--beta", "B", FIELD(beta), KOPT_REAL, 0, "the Baumgarte fraction of the joint-limit rows",
     ""},
    {"--gamma", "G", FIELD(gamma), KOPT_REAL, 0, "the Baumgarte fraction of the contact normals",
     ""},
    {"--deadzone", "D", FIELD(deadzone), KOPT_REAL, 0,
     "the penetration not corrected, m", ""},
    {"--merge-distance", "D", FIELD(merge_distance), KOPT_REAL, 0,
     "contacts of one geom pair closer than this are merged into the deeper one, m", ""},
    {"--restitution", "E", FIELD(restitution), KOPT_REAL, 0,
     "the restitution coefficient e of every contact", "the model's kamino_restitution, else "},
    {"--max-contacts", "N", FIELD(max_contacts), KOPT_INT, 0,
     "the contacts per world the rows hold; more are counted as overflow and dropped", ""},
    {"--projection-iterations", "N", FIELD(projection_iterations), KOPT_INT, 0,
     "gradyn's extension: after each step at most N iterations projecting the poses onto the "
     "joint and loop-closure rows (mass-weighted, velocities unchanged); 0: Kamino's "
     "velocity-level recovery alone", ""},
    {"--projection-tol", "T", FIELD(projection_tol), KOPT_REAL, 0,
     "the projection stops when every residual is below T, m or rad", ""},
    {"--curvature-bias", "on|off", FIELD(curvature_bias), KOPT_SWITCH, 0,
     "gradyn's extension: the joint and loop rows' velocity target also cancels the residuals' "
     "curvature over the step (h/2 d2r/dt2 at the start twists), so a step drifts O(h^3)", ""},
};
#define NOPTIONS ((int)(sizeof(options) / sizeof(options[0])))
_Static_assert(sizeof(options) / sizeof(options[0]) <= CLI_KAMINO_MAX_OPTIONS,
               "CLI_KAMINO_MAX_OPTIONS is too small for the option table");

// the help's layout: option column width, line width
#define HELP_COLUMN 28
#define HELP_WIDTH 92


const char* cli_kamino_backend_name(int backend) {
    return backend == GDN_KAMINO_PADMM ? "padmm"
           : backend == GDN_KAMINO_DVI ? "dvi"
           : backend == GDN_KAMINO_LOX ? "lox"
                                       : "unknown";
}


void cli_kamino_args_init(cliKaminoArgs* args) {
    memset(args, 0, sizeof(*args));
}


// read text as option o's value into s (o's field, or the three tolerances); 0 on success,
// else why holds the reason ("'abc' is not a finite number")
static int parse_value(const cliKaminoOption* o, const char* text, gdnKaminoSettings* s,
                       char* why, size_t why_size) {
    char* field = o->field ? (char*)s + o->offset : NULL;
    if (o->kind == KOPT_REAL) {
        char* end = NULL;
        double x = strtod(text, &end);
        if (end == text || *end != '\0' || !isfinite(x)) {
            snprintf(why, why_size, "'%s' is not a finite number", text);
            return 1;
        }
        if (field) {
            memcpy(field, &x, sizeof(double));
        } else {
            s->tol_primal = s->tol_dual = s->tol_compl = x;
        }
        return 0;
    }
    int v = 0;
    if (o->kind == KOPT_INT) {
        long x = 0;
        if (cli_parse_int(text, -(long)INT_MAX, INT_MAX, &x) != 0) {
            snprintf(why, why_size, "'%s' is not a whole number", text);
            return 1;
        }
        v = (int)x;
    } else if (o->kind == KOPT_SWITCH) {
        if (strcmp(text, "on") != 0 && strcmp(text, "off") != 0) {
            snprintf(why, why_size, "'%s' is not on or off", text);
            return 1;
        }
        v = strcmp(text, "on") == 0;
    } else {
        const int codes[] = {GDN_KAMINO_PADMM, GDN_KAMINO_DVI, GDN_KAMINO_LOX};
        v = -1;
        for (int k = 0; k < 3; k++) {
            if (strcmp(text, cli_kamino_backend_name(codes[k])) == 0) {
                v = codes[k];
            }
        }
        if (v < 0) {
            snprintf(why, why_size, "'%s' is not padmm, dvi or lox", text);
            return 1;
        }
        gdnKaminoBackend b = (gdnKaminoBackend)v;
        memcpy(field, &b, sizeof(b));
        return 0;
    }
    memcpy(field, &v, sizeof(int));
    return 0;
}


int cli_kamino_option(cliKaminoArgs* args, const char* command, int argc, char** argv, int* i) {
    const char* option = argv[*i];
    for (int k = 0; k < NOPTIONS; k++) {
        if (options[k].shared || strcmp(option, options[k].name) != 0) {
            continue;
        }
        if (*i + 1 >= argc) {
            cli_usage_error(command, "%s needs a value", option);
            return -1;
        }
        const char* value = argv[++*i];

        // the value's form now; its range when the library checks the settings
        gdnKaminoSettings scratch;
        gdn_kamino_settings_default(&scratch);
        char why[CLI_ERR_SIZE];
        if (parse_value(&options[k], value, &scratch, why, sizeof(why)) != 0) {
            cli_usage_error(command, "%s: %s", option, why);
            return -1;
        }
        args->text[k] = value;
        return 1;
    }
    return 0;
}


const char* cli_kamino_first_given(const cliKaminoArgs* args) {
    for (int k = 0; k < NOPTIONS; k++) {
        if (args->text[k]) {
            return options[k].name;
        }
    }
    return NULL;
}


// the value text of option k as given (solver's --iterations / --tolerance printed into buf),
// NULL when not given
static const char* given_text(int k, const cliSolverArgs* solver, const cliKaminoArgs* args,
                              char buf[CLI_NUMBER_SIZE]) {
    if (!options[k].shared) {
        return args->text[k];
    }
    if (strcmp(options[k].name, "--iterations") == 0) {
        if (solver->iterations < 0) {
            return NULL;
        }
        snprintf(buf, CLI_NUMBER_SIZE, "%ld", solver->iterations);
        return buf;
    }
    return solver->tolerance >= 0 ? cli_format_double(buf, solver->tolerance) : NULL;
}


// base with the options given applied in table order (only option `only` when >= 0)
static void apply_given(gdnKaminoSettings* s, const cliSolverArgs* solver,
                        const cliKaminoArgs* args, int only) {
    for (int k = 0; k < NOPTIONS; k++) {
        char buf[CLI_NUMBER_SIZE], why[CLI_ERR_SIZE];
        const char* text = given_text(k, solver, args, buf);
        if (text && (only < 0 || only == k)) {
            // parsed once already: cannot fail
            (void)parse_value(&options[k], text, s, why, sizeof(why));
        }
    }
}


// append "--name value" to out (", " between entries)
static void append_given(char* out, int size, const char* name, const char* text) {
    size_t len = strlen(out);
    if (len + 1 < (size_t)size) {
        snprintf(out + len, (size_t)size - len, "%s%s %s", len ? ", " : "", name, text);
    }
}


void cli_kamino_given(const cliSolverArgs* solver, const cliKaminoArgs* args, char* out,
                      int size) {
    out[0] = '\0';
    for (int k = 0; k < NOPTIONS; k++) {
        char buf[CLI_NUMBER_SIZE];
        const char* text = given_text(k, solver, args, buf);
        if (text) {
            append_given(out, size, options[k].name, text);
        }
    }
}


// the status and message of gdn_kamino_model_create with settings s (the model freed)
static gdnStatus try_settings(const gdnModel* m, const gdnKaminoSettings* s, char* err,
                              int err_size) {
    gdnKaminoModel* km = NULL;
    err[0] = '\0';
    gdnStatus status = gdn_kamino_model_create(m, s, &km, err, err_size, NULL, 0);
    gdn_kamino_model_free(km);
    return status;
}


int cli_kamino_model(const gdnModel* m, const char* path, const cliSolverArgs* solver,
                     const cliKaminoArgs* args, gdnKaminoModel** km) {
    *km = NULL;
    gdnKaminoSettings base;
    gdn_kamino_settings_default(&base);
    base.restitution = m->opt.kamino_restitution;
    gdnKaminoSettings set = base;
    apply_given(&set, solver, args, -1);
    char err[CLI_ERR_SIZE] = "", warn[CLI_WARN_SIZE] = "";
    gdnStatus status = gdn_kamino_model_create(m, &set, km, err, (int)sizeof(err), warn,
                                               (int)sizeof(warn));
    if (status == GDN_OK) {
        // the library's warnings, one per line
        for (const char* line = warn; *line;) {
            const char* end = strchr(line, '\n');
            int len = end ? (int)(end - line) : (int)strlen(line);
            if (len > 0) {
                fprintf(stderr, "gradyn: warning: Kamino: %.*s\n", len, line);
            }
            line += len + (end != NULL);
        }
        return CLI_EXIT_OK;
    }
    *km = NULL;
    char given[CLI_ERR_SIZE];
    cli_kamino_given(solver, args, given, (int)sizeof(given));
    const char* what = err[0] ? err : gdn_status_string(status);

    // the model's own refusal: the defaults fail the same way
    char trial[CLI_ERR_SIZE];
    if (!given[0] || (try_settings(m, &base, trial, (int)sizeof(trial)) == status &&
                      strcmp(trial, err) == 0)) {
        return cli_fail("%s: Kamino: %s", path, what);
    }

    // the options each of which alone makes the library refuse the same way; all the options
    // given when it is their combination
    char blamed[CLI_ERR_SIZE] = "";
    for (int k = 0; k < NOPTIONS; k++) {
        char buf[CLI_NUMBER_SIZE];
        const char* text = given_text(k, solver, args, buf);
        if (!text) {
            continue;
        }
        gdnKaminoSettings one = base;
        apply_given(&one, solver, args, k);
        if (try_settings(m, &one, trial, (int)sizeof(trial)) == status &&
            strcmp(trial, err) == 0) {
            append_given(blamed, (int)sizeof(blamed), options[k].name, text);
        }
    }
    return cli_usage_error("simulate", "%s: %s", blamed[0] ? blamed : given, what);
}


// the default of option o in s as text
static const char* default_text(const cliKaminoOption* o, const gdnKaminoSettings* s,
                                char buf[CLI_NUMBER_SIZE]) {
    const char* field = (const char*)s + o->offset;
    if (o->kind == KOPT_REAL) {
        double x;
        memcpy(&x, field, sizeof(x));
        return cli_format_double(buf, x);
    }
    if (o->kind == KOPT_BACKEND) {
        gdnKaminoBackend b;
        memcpy(&b, field, sizeof(b));
        return cli_kamino_backend_name((int)b);
    }
    int v;
    memcpy(&v, field, sizeof(v));
    if (o->kind == KOPT_SWITCH) {
        return v ? "on" : "off";
    }
    snprintf(buf, CLI_NUMBER_SIZE, "%d", v);
    return buf;
}


// text word-wrapped from column `column` (already reached) to HELP_WIDTH, continuation lines
// indented to HELP_COLUMN
static void print_wrapped(FILE* out, const char* text, int column) {
    const char* s = text;
    while (*s) {
        size_t word = strcspn(s, " ");
        if (column > HELP_COLUMN && column + 1 + (int)word > HELP_WIDTH) {
            fprintf(out, "\n%*s", HELP_COLUMN, "");
            column = HELP_COLUMN;
        } else if (column > HELP_COLUMN) {
            fputc(' ', out);
            column++;
        }
        fprintf(out, "%.*s", (int)word, s);
        column += (int)word;
        s += word;
        s += strspn(s, " ");
    }
    fputc('\n', out);
}


void cli_kamino_help(FILE* out) {
    gdnKaminoSettings d;
    gdn_kamino_settings_default(&d);
    fputs("Kamino settings (only with Kamino: --solver kamino, or a model whose <custom>\n"
          "gradyn_solver is kamino; elsewhere they are refused). The defaults in parentheses\n"
          "are gdn_kamino_settings_default's; docs/kamino.md describes the algorithm. A value\n"
          "the library refuses is reported with its message, naming the option:\n",
          out);
    for (int k = 0; k < NOPTIONS; k++) {
        const cliKaminoOption* o = &options[k];
        char head[64], line[CLI_ERR_SIZE], buf[CLI_NUMBER_SIZE];
        snprintf(head, sizeof(head), "  %s %s", o->name, o->value);
        if (o->default_prefix) {
            snprintf(line, sizeof(line), "%s (%s%s).", o->help, o->default_prefix,
                     default_text(o, &d, buf));
        } else {
            snprintf(line, sizeof(line), "%s.", o->help);
        }
        int column = (int)strlen(head);
        fputs(head, out);
        if (column >= HELP_COLUMN) {
            fprintf(out, "\n%*s", HELP_COLUMN, "");
        } else {
            fprintf(out, "%*s", HELP_COLUMN - column, "");
        }
        print_wrapped(out, line, HELP_COLUMN);
    }
}


void cli_kamino_settings_json(cliJson* w, const char* key, const gdnKaminoSettings* s) {
    cli_json_begin_object(w, key);
    for (int k = 0; k < NOPTIONS; k++) {
        const cliKaminoOption* o = &options[k];
        if (!o->field) {
            continue;
        }
        const char* field = (const char*)s + o->offset;
        if (o->kind == KOPT_REAL) {
            double x;
            memcpy(&x, field, sizeof(x));
            cli_json_double(w, o->field, x);
        } else if (o->kind == KOPT_BACKEND) {
            gdnKaminoBackend b;
            memcpy(&b, field, sizeof(b));
            cli_json_string(w, o->field, cli_kamino_backend_name((int)b));
        } else {
            int v;
            memcpy(&v, field, sizeof(v));
            cli_json_int(w, o->field, v);
        }
    }
    cli_json_end_object(w);
}
