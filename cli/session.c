// SPDX-License-Identifier: Apache-2.0
// Model loading, initial state (keyframe, state file) and numeric argument parsing.
#include "session.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_state.h"
#include "number_format.h"


gdnLoadOptions cli_load_options = {0};


int cli_session_load(cliSession* s, const char* path) {
    memset(s, 0, sizeof(*s));
    char err[CLI_ERR_SIZE] = "";
    gdnStatus status = gdn_load_xml_ex(path, &cli_load_options, &s->m, err, (int)sizeof(err),
                                       s->warnings, (int)sizeof(s->warnings));
    if (status != GDN_OK || !s->m) {
        s->m = NULL;
        if (err[0]) {
            return cli_fail("%s", err);
        }
        return cli_fail("%s: %s", path, gdn_status_string(status));
    }
    return CLI_EXIT_OK;
}


// resolve --key: a keyframe index, or a keyframe name; -1 when neither
static int resolve_key(const gdnModel* m, const char* key) {
    long index = 0;
    if (cli_parse_int(key, 0, m->nkey - 1L, &index) == 0) {
        return (int)index;
    }
    return gdn_name2id(m, "key", key);
}


int cli_session_open(cliSession* s, const char* path, const cliStateArgs* args) {
    return cli_session_open_solver(s, path, args, NULL);
}


int cli_session_open_solver(cliSession* s, const char* path, const cliStateArgs* args,
                            const cliSolverArgs* solver) {
    int code = cli_session_load(s, path);
    if (code != CLI_EXIT_OK) {
        return code;
    }

    // loader warnings, one per line, prefixed so they are not mistaken for output
    for (const char* line = s->warnings; *line;) {
        const char* end = strchr(line, '\n');
        int len = end ? (int)(end - line) : (int)strlen(line);
        if (len > 0) {
            fprintf(stderr, "gradyn: warning: %.*s\n", len, line);
        }
        line += len + (end != NULL);
    }

    // a model that selects Kamino runs it where the command can; elsewhere MuJoCo's formulation
    // only when asked for by name (never a silent switch of the physics)
    if (solver && s->m->opt.gradyn_solver == 1 && !solver->kamino_ok && solver->solver < 0) {
        cli_session_close(s);
        return cli_fail("%s selects the Kamino solver (<custom> gradyn_solver); this command "
                        "runs MuJoCo's formulation only: give --solver newton, cg or pgs to use "
                        "it", path);
    }
    if (solver) {
        cli_solver_apply(solver, s->m);
    }
    gdnStatus status = gdn_data_create(s->m, &s->d);
    if (status != GDN_OK) {
        cli_session_close(s);
        return cli_fail("cannot create data: %s", gdn_status_string(status));
    }

    // initial state: keyframe or defaults, then the fields of the state file
    gdn_data_reset(s->m, s->d);
    if (args->key) {
        int key = resolve_key(s->m, args->key);
        if (key < 0 || gdn_data_reset_keyframe(s->m, s->d, key) != GDN_OK) {
            int nkey = s->m->nkey;
            cli_session_close(s);
            return cli_fail("--key %s: no such keyframe (the model has %d)", args->key, nkey);
        }
    }
    if (args->state_path) {
        char err[CLI_ERR_SIZE] = "";
        if (cli_read_state(args->state_path, s->m, s->d, err, (int)sizeof(err)) != GDN_OK) {
            cli_session_close(s);
            return cli_fail("%s", err);
        }
    }
    return CLI_EXIT_OK;
}


void cli_warn_unconverged(const gdnModel* m, long n, long total, double residual) {
    char r[CLI_NUMBER_SIZE], tol[CLI_NUMBER_SIZE];
    cli_format_double(r, residual);
    cli_format_double(tol, m->opt.tolerance);
    if (total == 1) {
        fprintf(stderr, "gradyn: warning: the constraint solver did not converge (final "
                "residual %s; --iterations %d, --tolerance %s)\n", r, m->opt.iterations, tol);
        return;
    }
    fprintf(stderr, "gradyn: warning: the constraint solver did not converge in %ld of %ld "
            "steps (largest final residual %s; --iterations %d, --tolerance %s)\n", n, total, r,
            m->opt.iterations, tol);
}


void cli_session_close(cliSession* s) {
    gdn_data_free(s->d);
    gdn_model_free(s->m);
    s->d = NULL;
    s->m = NULL;
}


int cli_state_option(cliStateArgs* args, const char* command, int argc, char** argv, int* i) {
    const char* option = argv[*i];
    const char** target = NULL;
    if (strcmp(option, "--state") == 0) {
        target = &args->state_path;
    } else if (strcmp(option, "--key") == 0) {
        target = &args->key;
    } else {
        return 0;
    }
    if (*i + 1 >= argc) {
        cli_usage_error(command, "%s needs a value", option);
        return -1;
    }
    *target = argv[++*i];
    return 1;
}


int cli_parse_int(const char* text, long lo, long hi, long* value) {
    char* end = NULL;
    errno = 0;
    long parsed = strtol(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE || parsed < lo || parsed > hi) {
        return 1;
    }
    *value = parsed;
    return 0;
}


int cli_parse_list(const char* text, double* out, int n, char* err, int err_size) {
    const char* cursor = text;
    for (int i = 0; i < n; i++) {
        char* end = NULL;
        double value = strtod(cursor, &end);
        if (end == cursor || (*end != ',' && *end != '\0')) {
            snprintf(err, (size_t)err_size, "value %d is not a number", i);
            return 1;
        }
        if (!isfinite(value)) {
            snprintf(err, (size_t)err_size, "value %d is not finite", i);
            return 1;
        }
        out[i] = value;
        if (*end == '\0' && i + 1 < n) {
            snprintf(err, (size_t)err_size, "expected %d values, got %d", n, i + 1);
            return 1;
        }
        cursor = end + (*end == ',');
        if (i + 1 == n && *end != '\0') {
            snprintf(err, (size_t)err_size, "expected %d values, got more", n);
            return 1;
        }
    }
    if (n == 0 && text[0] != '\0') {
        snprintf(err, (size_t)err_size, "the model has no actuators");
        return 1;
    }
    return 0;
}


void cli_solver_args_init(cliSolverArgs* args) {
    args->solver = -1;
    args->cone = -1;
    args->iterations = -1;
    args->tolerance = -1;
    args->nocontact = 0;
    args->noconstraint = 0;
    args->onesided = 0;
    args->kamino = 0;
    args->kamino_ok = 0;
    args->integrator = -1;
}


int cli_solver_option(cliSolverArgs* args, const char* command, int argc, char** argv, int* i) {
    const char* option = argv[*i];

    // flags
    if (strcmp(option, "--nocontact") == 0) {
        args->nocontact = 1;
        return 1;
    }
    if (strcmp(option, "--noconstraint") == 0) {
        args->noconstraint = 1;
        return 1;
    }
    if (strcmp(option, "--onesided") == 0) {
        args->onesided = 1;
        return 1;
    }
    if (strcmp(option, "--solver") != 0 && strcmp(option, "--cone") != 0 &&
        strcmp(option, "--iterations") != 0 && strcmp(option, "--tolerance") != 0 &&
        strcmp(option, "--integrator") != 0) {
        return 0;
    }

    // options with a value
    if (*i + 1 >= argc) {
        cli_usage_error(command, "%s needs a value", option);
        return -1;
    }
    const char* value = argv[++*i];
    if (strcmp(option, "--solver") == 0) {
        if (strcmp(value, "newton") == 0) {
            args->solver = GDN_SOL_NEWTON;
        } else if (strcmp(value, "cg") == 0) {
            args->solver = GDN_SOL_CG;
        } else if (strcmp(value, "pgs") == 0) {
            args->solver = GDN_SOL_PGS;
        } else if (strcmp(value, "kamino") == 0 && args->kamino_ok) {
            args->kamino = 1;
        } else if (strcmp(value, "kamino") == 0) {
            cli_usage_error(command, "--solver kamino: only simulate runs Kamino (it has no "
                                     "derivatives yet)");
            return -1;
        } else {
            cli_usage_error(command, "--solver: '%s' is not newton, cg, pgs or kamino", value);
            return -1;
        }
    } else if (strcmp(option, "--cone") == 0) {
        if (strcmp(value, "pyramidal") == 0) {
            args->cone = GDN_CONE_PYRAMIDAL;
        } else if (strcmp(value, "elliptic") == 0) {
            args->cone = GDN_CONE_ELLIPTIC;
        } else {
            cli_usage_error(command, "--cone: '%s' is not pyramidal or elliptic", value);
            return -1;
        }
    } else if (strcmp(option, "--integrator") == 0) {
        if (strcmp(value, "euler") == 0) {
            args->integrator = GDN_INT_EULER;
        } else if (strcmp(value, "rk4") == 0) {
            args->integrator = GDN_INT_RK4;
        } else if (strcmp(value, "implicit") == 0) {
            args->integrator = GDN_INT_IMPLICIT;
        } else {
            cli_usage_error(command, "--integrator: '%s' is not euler, rk4 or implicit", value);
            return -1;
        }
    } else if (strcmp(option, "--iterations") == 0) {
        if (cli_parse_int(value, 0, 1000000L, &args->iterations) != 0) {
            cli_usage_error(command, "--iterations: '%s' is not an integer in [0, 1e6]", value);
            return -1;
        }
    } else {
        char* end = NULL;
        double tolerance = strtod(value, &end);
        if (end == value || *end != '\0' || !isfinite(tolerance) || tolerance < 0) {
            cli_usage_error(command, "--tolerance: '%s' is not a finite number >= 0", value);
            return -1;
        }
        args->tolerance = tolerance;
    }
    return 1;
}


const char* cli_integrator_name(int integrator) {
    return integrator == GDN_INT_EULER      ? "euler"
           : integrator == GDN_INT_RK4      ? "rk4"
           : integrator == GDN_INT_IMPLICIT ? "implicit"
                                            : "unknown";
}

const char* cli_solver_name(int solver) {
    return solver == GDN_SOL_NEWTON ? "newton"
           : solver == GDN_SOL_CG   ? "cg"
           : solver == GDN_SOL_PGS  ? "pgs"
                                    : "unknown";
}


const char* cli_cone_name(int cone) {
    return cone == GDN_CONE_PYRAMIDAL  ? "pyramidal"
           : cone == GDN_CONE_ELLIPTIC ? "elliptic"
                                       : "unknown";
}


void cli_solver_apply(const cliSolverArgs* args, gdnModel* m) {
    if (args->solver >= 0) {
        m->opt.solver = args->solver;
    }
    if (args->cone >= 0) {
        m->opt.cone = args->cone;
    }
    if (args->iterations >= 0) {
        m->opt.iterations = (int)args->iterations;
    }
    if (args->tolerance >= 0) {
        m->opt.tolerance = args->tolerance;
    }
    if (args->nocontact) {
        m->opt.disableflags |= GDN_DSBL_CONTACT;
    }
    if (args->noconstraint) {
        m->opt.disableflags |= GDN_DSBL_CONSTRAINT;
    }
    if (args->onesided) {
        m->opt.enableflags |= GDN_ENBL_ONESIDED;
    }
    if (args->integrator >= 0) {
        m->opt.integrator = (gdnIntegrator)args->integrator;
    }
}
