// SPDX-License-Identifier: Apache-2.0
// The actuated test model (every actuator and spring kind) shared by the force tests.
#include "oracle/actuated_model.h"

#include <stdio.h>

// actuators on free, ball, hinge and slide joints (motor, position, velocity, general affine,
// 3D and 6D gears, ctrl and force clamping) and springs on every joint type
static const char kActuatedXml[] =
    "<mujoco model=\"actuated\">\n"
    "  <compiler angle=\"radian\"/>\n"
    "  <option timestep=\"0.002\"/>\n"
    "  <worldbody>\n"
    "    <body name=\"base\" pos=\"0 0 1\" quat=\"0.9 0.1 0.3 0.2\">\n"
    "      <joint name=\"root\" type=\"free\" stiffness=\"1.5\" damping=\"0.1\"/>\n"
    "      <geom type=\"box\" size=\".1 .2 .3\" mass=\"1\"/>\n"
    "      <body name=\"arm\" pos=\"0.2 0 0\">\n"
    "        <joint name=\"ball\" type=\"ball\" pos=\"0.05 0 0\" damping=\"0.3\" stiffness=\"2\"/>\n"
    "        <geom type=\"capsule\" fromto=\"0 0 0 0.3 0 0\" size=\"0.05\"/>\n"
    "        <body name=\"tip\" pos=\"0.3 0 0\" euler=\"0.3 0.2 0.1\">\n"
    "          <joint name=\"hinge\" type=\"hinge\" axis=\"0 1 0\" springref=\"0.3\" stiffness=\"2\"/>\n"
    "          <joint name=\"slide\" type=\"slide\" axis=\"1 0 0\" damping=\"1\" stiffness=\"4\"/>\n"
    "          <geom type=\"sphere\" size=\"0.1\" pos=\"0.1 0 0\"/>\n"
    "        </body>\n"
    "      </body>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "  <actuator>\n"
    "    <motor joint=\"root\" gear=\"1 2 3 0.5 -0.5 0.25\"/>\n"
    "    <motor joint=\"ball\" gear=\"0.3 -0.4 1.2\" ctrllimited=\"true\" ctrlrange=\"-1 1\"/>\n"
    "    <position joint=\"ball\" gear=\"1 0.5 0\" kp=\"5\"/>\n"
    "    <velocity joint=\"ball\" gear=\"0 0 1\" kv=\"2\" forcelimited=\"true\" forcerange=\"-0.5 0.5\"/>\n"
    "    <position joint=\"hinge\" kp=\"10\" ctrllimited=\"true\" ctrlrange=\"-0.5 0.5\"/>\n"
    "    <velocity joint=\"slide\" kv=\"3\" gear=\"2\"/>\n"
    "    <general joint=\"slide\" gaintype=\"affine\" gainprm=\"0.5 0.25 -0.125\" biastype=\"affine\"\n"
    "             biasprm=\"1 -2 0.75\" forcelimited=\"true\" forcerange=\"-2 2\"/>\n"
    "  </actuator>\n"
    "</mujoco>\n";


const char* gdn_oracle_actuated_model_path(const char* tag) {
    static char path[1024];
    snprintf(path, sizeof(path), "%s/%s_actuated.xml", GDN_BINARY_DIR, tag);
    FILE* f = fopen(path, "w");
    if (!f) {
        return NULL;
    }
    fputs(kActuatedXml, f);
    fclose(f);
    return path;
}
