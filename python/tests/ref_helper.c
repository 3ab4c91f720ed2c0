// SPDX-License-Identifier: Apache-2.0
// The pytest suite's C reference: runs a call sequence straight on the C API and prints every
// number as a C99 hex float, for the bit-for-bit comparison with the Python bindings.
// usage: gdnpy_ref MODEL.xml NSTEP  -> per line: "time", "qpos ...", "qvel ...", then after
// the steps the step_jvp of ones, the step_vjp of ones, the transition Jacobians A, B, then
// gdn_forward's qacc and gdn_inverse's qfrc_inverse
#include <stdio.h>
#include <stdlib.h>

#include <gradyn/derivative.h>
#include <gradyn/gradyn.h>

// one named row of numbers in hex
static void print_row(const char* name, const double* v, int n)
{
    printf("%s", name);
    for (int i = 0; i < n; i++) {
        printf(" %a", v[i]);
    }
    printf("\n");
}

int main(int argc, char** argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: gdnpy_ref MODEL.xml NSTEP\n");
        return 2;
    }
    char err[1024];
    gdnModel* m = NULL;
    if (gdn_load_xml(argv[1], &m, err, (int)sizeof err, NULL, 0) != GDN_OK) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    gdnData* d = NULL;
    if (gdn_data_create(m, &d) != GDN_OK) {
        return 1;
    }
    // the controls the tests set: ctrl[i] = 0.01 * (i + 1)
    for (int i = 0; i < m->nu; i++) {
        d->ctrl[i] = 0.01 * (i + 1);
    }
    int nstep = atoi(argv[2]);
    int status = 0;
    for (int t = 0; t < nstep; t++) {
        gdnStatus st = gdn_step(m, d);
        if (st != GDN_OK) {
            printf("error %d %d\n", t, (int)st);
            status = 0;
            break;
        }
    }
    print_row("time", &d->time, 1);
    print_row("qpos", d->qpos, m->nq);
    print_row("qvel", d->qvel, m->nv);
    print_row("qacc", d->qacc, m->nv);
    print_row("xpos", d->xpos, 3 * m->nbody);
    printf("ncon %d\n", d->ncon);
    // the derivatives at the final state: tangents and cotangents of ones
    int nv = m->nv, nu = m->nu;
    double* buf = calloc((size_t)(8 * nv + 2 * nu + 4 * nv * nv + 2 * nv * nu + 1), sizeof(double));
    double* ones = buf;
    double* onesu = ones + nv;
    double* oq = onesu + nu;
    double* ov = oq + nv;
    double* gq = ov + nv;
    double* gv = gq + nv;
    double* gu = gv + nv;
    double* A = gu + nu;
    double* B = A + 4 * nv * nv;
    for (int i = 0; i < nv; i++) {
        ones[i] = 1.0;
    }
    for (int i = 0; i < nu; i++) {
        onesu[i] = 1.0;
    }
    gdnStatus st = gdn_step_jvp(m, d, ones, ones, onesu, NULL, NULL, oq, ov);
    printf("jvp_status %d\n", (int)st);
    print_row("jvp_q", oq, nv);
    print_row("jvp_v", ov, nv);
    st = gdn_step_vjp(m, d, ones, ones, gq, gv, gu, NULL, NULL);
    printf("vjp_status %d\n", (int)st);
    print_row("vjp_q", gq, nv);
    print_row("vjp_v", gv, nv);
    print_row("vjp_u", gu, nu);
    st = gdn_transition_jacobians(m, d, A, B);
    printf("jac_status %d\n", (int)st);
    print_row("A", A, 4 * nv * nv);
    print_row("B", B, 2 * nv * nu);
    // forward then inverse dynamics at the final state
    st = gdn_forward(m, d);
    printf("forward_status %d\n", (int)st);
    print_row("fwd_qacc", d->qacc, nv);
    st = gdn_inverse(m, d);
    printf("inverse_status %d\n", (int)st);
    print_row("qfrc_inverse", d->qfrc_inverse, nv);
    free(buf);
    gdn_data_free(d);
    gdn_model_free(m);
    return status;
}
