// SPDX-License-Identifier: Apache-2.0
// gradyn program entry: usage text, --help/--version, dispatch to the subcommands.
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char usage_text[] =
    "usage: gradyn <command> [options]\n"
    "\n"
    "commands:\n"
    "  info MODEL.xml\n"
    "      sizes, options and the body tree (joints, masses) as JSON, plus loader warnings\n"
    "  forward MODEL.xml [--state FILE|-] [--key K]\n"
    "      forward dynamics at one state; prints qacc, qM (dense nv x nv), qfrc_bias,\n"
    "      qfrc_passive, qfrc_actuator, energy [potential, kinetic] and xpos as JSON\n"
    "  simulate MODEL.xml --steps N [--state FILE|-] [--key K] [--ctrl c1,c2,...]\n"
    "                     [--format csv|json] [--output FILE] [--every K]\n"
    "                     [--solver newton|cg|pgs] [--cone pyramidal|elliptic] [--iterations N]\n"
    "                     [--tolerance T] [--nocontact] [--noconstraint]\n"
    "      N steps of the semi-implicit Euler integrator; writes time, qpos, qvel of step 0\n"
    "      and of every K-th step (and of the last step), so N/K + 1 rows when K divides N.\n"
    "      Contacts, limits and equalities are solved by MuJoCo's Newton, CG or PGS (solver\n"
    "      options override the model's <option>; --nocontact / --noconstraint disable\n"
    "      contacts / every constraint); steps whose solve did not converge are counted\n"
    "  contacts MODEL.xml [--state FILE|-] [--key K] [--forces] [solver options]\n"
    "      kinematics and collision at one state; prints every contact as JSON (geom1/geom2\n"
    "      names and ids, dist, pos, frame (normal then two tangents), dim, friction, solref,\n"
    "      solimp, includemargin) and ncon_overflow when the buffer was too small; with\n"
    "      --forces, the forward dynamics and each contact's force in its frame\n"
    "  grad MODEL.xml [--steps T] [--body NAME|ID] [--point x,y,z] [--target x,y,z]\n"
    "                 [--weight w] [--effort w] [--vel-weight w] [--ctrl c1,...]\n"
    "                 [--state FILE|-] [--key K] [--penalty h,k,c] [--checkpoint K]\n"
    "      T-step rollout with J = weight |x_T - target|^2 + effort sum |u_t|^2\n"
    "      + vel-weight |v_T|^2 (x: a body point, default the last body's COM; target: its\n"
    "      start); one adjoint pass; prints J, dJ/dq0 (tangent), dJ/dv0, dJ/du (T x nu),\n"
    "      dJ/dparams (10 per body, named) and dJ/dverts (per body) as JSON. --ctrl: nu\n"
    "      values held, or T x nu values; --penalty enables penalty ground contact\n"
    "  gradcheck MODEL.xml [grad's options] [--eps E] [--tol TOL] [--blocks a,b,...]\n"
    "      every gradient block of grad against central finite differences; prints the\n"
    "      worst relative error per block as JSON; exit code 1 when one exceeds TOL (1e-5)\n"
    "\n"
    "state files (JSON object, every field optional):\n"
    "  {\"qpos\": [nq numbers], \"qvel\": [nv], \"ctrl\": [nu], \"qfrc_applied\": [nv],\n"
    "   \"time\": t}\n"
    "  missing fields keep the defaults (the keyframe given by --key, else qpos0 and zeros)\n"
    "\n"
    "  --key K       start from keyframe K (index or name) before applying the state file\n"
    "  -h, --help    print this help\n"
    "  --version     print the version\n"
    "\n"
    "errors go to stderr; exit code 0 on success, 1 on bad input or a failed step, 2 on a bad\n"
    "command line\n";


int cli_fail(const char* format, ...) {
    va_list args;
    va_start(args, format);
    fputs("gradyn: error: ", stderr);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    return CLI_EXIT_ERROR;
}


int cli_usage_error(const char* command, const char* format, ...) {
    va_list args;
    va_start(args, format);
    fprintf(stderr, "gradyn %s: ", command);
    vfprintf(stderr, format, args);
    fprintf(stderr, "\n(see gradyn --help)\n");
    va_end(args);
    return CLI_EXIT_USAGE;
}


int main(int argc, char** argv) {
    if (argc < 2) {
        fputs(usage_text, stderr);
        return CLI_EXIT_USAGE;
    }
    const char* command = argv[1];

    // global flags
    if (strcmp(command, "-h") == 0 || strcmp(command, "--help") == 0 ||
        strcmp(command, "help") == 0) {
        fputs(usage_text, stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(command, "--version") == 0) {
        printf("gradyn %s\n", GDN_VERSION_STRING);
        return CLI_EXIT_OK;
    }

    // subcommands receive argv from their own name on
    if (strcmp(command, "info") == 0) {
        return cli_info(argc - 1, argv + 1);
    }
    if (strcmp(command, "forward") == 0) {
        return cli_forward(argc - 1, argv + 1);
    }
    if (strcmp(command, "simulate") == 0) {
        return cli_simulate(argc - 1, argv + 1);
    }
    if (strcmp(command, "contacts") == 0) {
        return cli_contacts(argc - 1, argv + 1);
    }
    if (strcmp(command, "grad") == 0) {
        return cli_grad(argc - 1, argv + 1);
    }
    if (strcmp(command, "gradcheck") == 0) {
        return cli_gradcheck(argc - 1, argv + 1);
    }
    fprintf(stderr, "gradyn: unknown command '%s'\n\n", command);
    fputs(usage_text, stderr);
    return CLI_EXIT_USAGE;
}
