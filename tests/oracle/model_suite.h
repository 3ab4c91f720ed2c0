// SPDX-License-Identifier: Apache-2.0
// One test table over every oracle model, loaded from MJCF and copied from MuJoCo's mjModel.
#ifndef GDN_TEST_MODEL_SUITE_H
#define GDN_TEST_MODEL_SUITE_H

#include "oracle/oracle.h"
#include "runner/test.h"

// case fn runs check(path, GDN_ORACLE_FROM_XML), case fn_mjmodel runs
// check(path, GDN_ORACLE_FROM_MJMODEL)
#define GDN_ORACLE_SUITE_CASE_FNS_(check, fn, path)                                   \
    static int fn(void) {                                                             \
        return check(path, GDN_ORACLE_FROM_XML);                                      \
    }                                                                                 \
    static int fn##_mjmodel(void) {                                                   \
        return check(path, GDN_ORACLE_FROM_MJMODEL);                                  \
    }

// main() of a test whose cases are int check(const char* path, gdnOracleSource source) on
// tests/models/{pendulum, double_pendulum, arm7, ball_chain, box_spin, slider, humanoid32}.xml
// and MuJoCo's humanoid.xml. "name/mjmodel": gradyn's model copied from MuJoCo's compiled
// model, so a failure there is in the dynamics; a failure only in "name" is in the loader
#define GDN_ORACLE_MODEL_SUITE_MAIN(check)                                                      \
    GDN_ORACLE_SUITE_CASE_FNS_(check, suite_pendulum, GDN_TEST_MODELS "/pendulum.xml")         \
    GDN_ORACLE_SUITE_CASE_FNS_(check, suite_double_pendulum,                                   \
                               GDN_TEST_MODELS "/double_pendulum.xml")                          \
    GDN_ORACLE_SUITE_CASE_FNS_(check, suite_arm7, GDN_TEST_MODELS "/arm7.xml")                 \
    GDN_ORACLE_SUITE_CASE_FNS_(check, suite_ball_chain, GDN_TEST_MODELS "/ball_chain.xml")     \
    GDN_ORACLE_SUITE_CASE_FNS_(check, suite_box_spin, GDN_TEST_MODELS "/box_spin.xml")         \
    GDN_ORACLE_SUITE_CASE_FNS_(check, suite_slider, GDN_TEST_MODELS "/slider.xml")             \
    GDN_ORACLE_SUITE_CASE_FNS_(check, suite_humanoid32, GDN_TEST_MODELS "/humanoid32.xml")     \
    GDN_ORACLE_SUITE_CASE_FNS_(check, suite_mujoco_humanoid, GDN_ORACLE_MJ_HUMANOID)           \
    static const gdnTestCase suite_cases[] = {                                                 \
        {"pendulum", suite_pendulum},                                                          \
        {"double_pendulum", suite_double_pendulum},                                            \
        {"arm7", suite_arm7},                                                                  \
        {"ball_chain", suite_ball_chain},                                                      \
        {"box_spin", suite_box_spin},                                                          \
        {"slider", suite_slider},                                                              \
        {"humanoid32", suite_humanoid32},                                                      \
        {"mujoco_humanoid", suite_mujoco_humanoid},                                            \
        {"pendulum/mjmodel", suite_pendulum_mjmodel},                                          \
        {"double_pendulum/mjmodel", suite_double_pendulum_mjmodel},                            \
        {"arm7/mjmodel", suite_arm7_mjmodel},                                                  \
        {"ball_chain/mjmodel", suite_ball_chain_mjmodel},                                      \
        {"box_spin/mjmodel", suite_box_spin_mjmodel},                                          \
        {"slider/mjmodel", suite_slider_mjmodel},                                              \
        {"humanoid32/mjmodel", suite_humanoid32_mjmodel},                                      \
        {"mujoco_humanoid/mjmodel", suite_mujoco_humanoid_mjmodel},                            \
    };                                                                                         \
    GDN_TEST_MAIN(suite_cases)

#endif
