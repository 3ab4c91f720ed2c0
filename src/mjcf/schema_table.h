// SPDX-License-Identifier: Apache-2.0
// The attributes MJCF 2.2.2 allows on each element (its XML reference), keyed by element path.
#ifndef GDN_MJCF_SCHEMA_TABLE_H
#define GDN_MJCF_SCHEMA_TABLE_H

// One row per element: its path from the root with <worldbody> read as "body" and the
// recursive elements (body in body, default in default) collapsed to one level, and its
// allowed attribute names separated by single spaces ("" when it takes none).
typedef struct gdnSchemaRow {
    const char* path;
    const char* attrs;
} gdnSchemaRow;

// the elements whose children may repeat the element itself (MJCF: body, default)
static const char* const gdn_schema_recursive[] = {"mujoco/body", "mujoco/default"};

static const gdnSchemaRow gdn_schema_rows[] = {
    {"mujoco", "model"},
    {"mujoco/compiler",
     "autolimits boundmass boundinertia settotalmass balanceinertia strippath "
     "coordinate angle fitaabb eulerseq meshdir texturedir discardvisual convexhull "
     "usethread fusestatic inertiafromgeom inertiagrouprange exactmeshinertia"},
    {"mujoco/compiler/lengthrange",
     "mode useexisting uselimit accel maxforce timeconst timestep inttotal inteval "
     "tolrange"},
    {"mujoco/option",
     "timestep apirate impratio tolerance noslip_tolerance mpr_tolerance gravity wind "
     "magnetic density viscosity o_margin o_solref o_solimp integrator collision cone "
     "jacobian solver iterations noslip_iterations mpr_iterations"},
    {"mujoco/option/flag",
     "constraint equality frictionloss limit contact passive gravity clampctrl "
     "warmstart filterparent actuation refsafe sensor override energy fwdinv "
     "sensornoise multiccd"},
    {"mujoco/size",
     "njmax nconmax nstack nuserdata nkey nuser_body nuser_jnt nuser_geom nuser_site "
     "nuser_cam nuser_tendon nuser_actuator nuser_sensor"},
    {"mujoco/visual", ""},
    {"mujoco/visual/global", "fovy ipd azimuth elevation linewidth glow offwidth offheight"},
    {"mujoco/visual/quality", "shadowsize offsamples numslices numstacks numquads"},
    {"mujoco/visual/headlight", "ambient diffuse specular active"},
    {"mujoco/visual/map",
     "stiffness stiffnessrot force torque alpha fogstart fogend znear zfar haze "
     "shadowclip shadowscale actuatortendon"},
    {"mujoco/visual/scale",
     "forcewidth contactwidth contactheight connect com camera light selectpoint "
     "jointlength jointwidth actuatorlength actuatorwidth framelength framewidth "
     "constraint slidercrank"},
    {"mujoco/visual/rgba",
     "fog haze force inertia joint actuator actuatornegative actuatorpositive com "
     "camera light selectpoint connect contactpoint contactforce contactfriction "
     "contacttorque contactgap rangefinder constraint slidercrank crankbroken"},
    {"mujoco/statistic", "meaninertia meanmass meansize extent center"},
    {"mujoco/default", "class"},
    {"mujoco/default/mesh", "scale"},
    {"mujoco/default/material",
     "texture emission specular shininess reflectance rgba texrepeat texuniform"},
    {"mujoco/default/joint",
     "type group pos axis springdamper limited solreflimit solimplimit solreffriction "
     "solimpfriction stiffness range margin ref springref armature damping "
     "frictionloss user"},
    {"mujoco/default/geom",
     "type pos quat contype conaffinity condim group priority size material friction "
     "mass density shellinertia solmix solref solimp margin gap fromto axisangle "
     "xyaxes zaxis euler hfield mesh fitscale rgba fluidshape fluidcoef user"},
    {"mujoco/default/site",
     "type group pos quat material size fromto axisangle xyaxes zaxis euler rgba user"},
    {"mujoco/default/camera", "fovy ipd pos quat axisangle xyaxes zaxis euler mode user"},
    {"mujoco/default/light",
     "pos dir directional castshadow active attenuation cutoff exponent ambient "
     "diffuse specular mode"},
    {"mujoco/default/pair", "condim friction solref solimp gap margin"},
    {"mujoco/default/equality", "active solref solimp"},
    {"mujoco/default/tendon",
     "group limited range solreflimit solimplimit solreffriction solimpfriction "
     "frictionloss springlength width material margin stiffness damping rgba user"},
    {"mujoco/default/general",
     "ctrllimited forcelimited actlimited ctrlrange forcerange actrange gear "
     "cranklength user group dyntype gaintype biastype dynprm gainprm biasprm"},
    {"mujoco/default/motor",
     "ctrllimited forcelimited ctrlrange forcerange gear cranklength user group"},
    {"mujoco/default/position",
     "ctrllimited forcelimited ctrlrange forcerange gear cranklength user group kp"},
    {"mujoco/default/velocity",
     "ctrllimited forcelimited ctrlrange forcerange gear cranklength user group kv"},
    {"mujoco/default/intvelocity",
     "ctrllimited forcelimited ctrlrange forcerange actrange gear cranklength user "
     "group kp"},
    {"mujoco/default/damper", "forcelimited ctrlrange forcerange gear cranklength user group kv"},
    {"mujoco/default/cylinder",
     "ctrllimited forcelimited ctrlrange forcerange gear cranklength user group "
     "timeconst area diameter bias"},
    {"mujoco/default/muscle",
     "ctrllimited forcelimited ctrlrange forcerange gear cranklength user group "
     "timeconst range force scale lmin lmax vmax fpmax fvmax"},
    {"mujoco/default/adhesion", "forcelimited ctrlrange forcerange gain user group"},
    {"mujoco/custom", ""},
    {"mujoco/custom/numeric", "name size data"},
    {"mujoco/custom/text", "name data"},
    {"mujoco/custom/tuple", "name"},
    {"mujoco/custom/tuple/element", "objtype objname prm"},
    {"mujoco/asset", ""},
    {"mujoco/asset/texture",
     "name type file gridsize gridlayout fileright fileleft fileup filedown filefront "
     "fileback builtin rgb1 rgb2 mark markrgb random width height hflip vflip"},
    {"mujoco/asset/hfield", "name file nrow ncol size"},
    {"mujoco/asset/mesh",
     "name class file vertex normal texcoord face refpos refquat scale smoothnormal"},
    {"mujoco/asset/skin", "name file material rgba inflate vertex texcoord face group"},
    {"mujoco/asset/skin/bone", "body bindpos bindquat vertid vertweight"},
    {"mujoco/asset/material",
     "name class texture texrepeat texuniform emission specular shininess reflectance "
     "rgba"},
    {"mujoco/body", "name childclass pos quat mocap axisangle xyaxes zaxis euler user"},
    {"mujoco/body/inertial", "pos quat mass diaginertia axisangle xyaxes zaxis euler fullinertia"},
    {"mujoco/body/joint",
     "name class type group pos axis springdamper limited solreflimit solimplimit "
     "solreffriction solimpfriction stiffness range margin ref springref armature "
     "damping frictionloss user"},
    {"mujoco/body/freejoint", "name group"},
    {"mujoco/body/geom",
     "name class type contype conaffinity condim group priority size material friction "
     "mass density shellinertia solmix solref solimp margin gap fromto pos quat "
     "axisangle xyaxes zaxis euler hfield mesh fitscale rgba fluidshape fluidcoef user"},
    {"mujoco/body/site",
     "name class type group pos quat material size fromto axisangle xyaxes zaxis euler "
     "rgba user"},
    {"mujoco/body/camera",
     "name class fovy ipd pos quat axisangle xyaxes zaxis euler mode target user"},
    {"mujoco/body/light",
     "name class directional castshadow active pos dir attenuation cutoff exponent "
     "ambient diffuse specular mode target"},
    {"mujoco/body/composite",
     "prefix type count spacing offset flatinertia solrefsmooth solimpsmooth"},
    {"mujoco/body/composite/joint",
     "kind group stiffness damping armature solreffix solimpfix limited range margin "
     "solreflimit solimplimit frictionloss solreffriction solimpfriction"},
    {"mujoco/body/composite/tendon",
     "kind group stiffness damping solreffix solimpfix limited range margin "
     "solreflimit solimplimit frictionloss solreffriction solimpfriction material rgba "
     "width"},
    {"mujoco/body/composite/skin", "texcoord material group rgba inflate subgrid"},
    {"mujoco/body/composite/geom",
     "type contype conaffinity condim group priority size material rgba friction mass "
     "density solmix solref solimp margin gap"},
    {"mujoco/body/composite/site", "group size material rgba"},
    {"mujoco/body/composite/pin", "coord"},
    {"mujoco/contact", ""},
    {"mujoco/contact/pair", "name class geom1 geom2 condim friction solref solimp gap margin"},
    {"mujoco/contact/exclude", "name body1 body2"},
    {"mujoco/equality", ""},
    {"mujoco/equality/connect", "name class body1 body2 anchor active solref solimp"},
    {"mujoco/equality/weld",
     "name class body1 body2 relpose anchor active solref solimp torquescale"},
    {"mujoco/equality/joint", "name class joint1 joint2 polycoef active solref solimp"},
    {"mujoco/equality/tendon", "name class tendon1 tendon2 polycoef active solref solimp"},
    {"mujoco/equality/distance", "name class geom1 geom2 distance active solref solimp"},
    {"mujoco/tendon", ""},
    {"mujoco/tendon/spatial",
     "name class group limited range solreflimit solimplimit solreffriction "
     "solimpfriction frictionloss springlength width material margin stiffness damping "
     "rgba user"},
    {"mujoco/tendon/spatial/site", "site"},
    {"mujoco/tendon/spatial/geom", "geom sidesite"},
    {"mujoco/tendon/spatial/pulley", "divisor"},
    {"mujoco/tendon/fixed",
     "name class group limited range solreflimit solimplimit solreffriction "
     "solimpfriction frictionloss springlength margin stiffness damping user"},
    {"mujoco/tendon/fixed/joint", "joint coef"},
    {"mujoco/actuator", ""},
    {"mujoco/actuator/general",
     "name class group ctrllimited forcelimited actlimited ctrlrange forcerange "
     "actrange lengthrange gear cranklength user joint jointinparent tendon slidersite "
     "cranksite site refsite body dyntype gaintype biastype dynprm gainprm biasprm"},
    {"mujoco/actuator/motor",
     "name class group ctrllimited forcelimited ctrlrange forcerange lengthrange gear "
     "cranklength user joint jointinparent tendon slidersite cranksite site refsite"},
    {"mujoco/actuator/position",
     "name class group ctrllimited forcelimited ctrlrange forcerange lengthrange gear "
     "cranklength user joint jointinparent tendon slidersite cranksite site refsite kp"},
    {"mujoco/actuator/velocity",
     "name class group ctrllimited forcelimited ctrlrange forcerange lengthrange gear "
     "cranklength user joint jointinparent tendon slidersite cranksite site refsite kv"},
    {"mujoco/actuator/intvelocity",
     "name class group ctrllimited forcelimited ctrlrange forcerange actrange "
     "lengthrange gear cranklength user joint jointinparent tendon slidersite "
     "cranksite site refsite kp"},
    {"mujoco/actuator/damper",
     "name class group forcelimited ctrlrange forcerange lengthrange gear cranklength "
     "user joint jointinparent tendon slidersite cranksite site refsite kv"},
    {"mujoco/actuator/cylinder",
     "name class group ctrllimited forcelimited ctrlrange forcerange lengthrange gear "
     "cranklength user joint jointinparent tendon slidersite cranksite site refsite "
     "timeconst area diameter bias"},
    {"mujoco/actuator/muscle",
     "name class group ctrllimited forcelimited ctrlrange forcerange lengthrange gear "
     "cranklength user joint jointinparent tendon slidersite cranksite timeconst range "
     "force scale lmin lmax vmax fpmax fvmax"},
    {"mujoco/actuator/adhesion",
     "name class group forcelimited ctrlrange forcerange user body gain"},
    {"mujoco/sensor", ""},
    {"mujoco/sensor/touch", "name site cutoff noise user"},
    {"mujoco/sensor/accelerometer", "name site cutoff noise user"},
    {"mujoco/sensor/velocimeter", "name site cutoff noise user"},
    {"mujoco/sensor/gyro", "name site cutoff noise user"},
    {"mujoco/sensor/force", "name site cutoff noise user"},
    {"mujoco/sensor/torque", "name site cutoff noise user"},
    {"mujoco/sensor/magnetometer", "name site cutoff noise user"},
    {"mujoco/sensor/rangefinder", "name site cutoff noise user"},
    {"mujoco/sensor/jointpos", "name joint cutoff noise user"},
    {"mujoco/sensor/jointvel", "name joint cutoff noise user"},
    {"mujoco/sensor/tendonpos", "name tendon cutoff noise user"},
    {"mujoco/sensor/tendonvel", "name tendon cutoff noise user"},
    {"mujoco/sensor/actuatorpos", "name actuator cutoff noise user"},
    {"mujoco/sensor/actuatorvel", "name actuator cutoff noise user"},
    {"mujoco/sensor/actuatorfrc", "name actuator cutoff noise user"},
    {"mujoco/sensor/ballquat", "name joint cutoff noise user"},
    {"mujoco/sensor/ballangvel", "name joint cutoff noise user"},
    {"mujoco/sensor/jointlimitpos", "name joint cutoff noise user"},
    {"mujoco/sensor/jointlimitvel", "name joint cutoff noise user"},
    {"mujoco/sensor/jointlimitfrc", "name joint cutoff noise user"},
    {"mujoco/sensor/tendonlimitpos", "name tendon cutoff noise user"},
    {"mujoco/sensor/tendonlimitvel", "name tendon cutoff noise user"},
    {"mujoco/sensor/tendonlimitfrc", "name tendon cutoff noise user"},
    {"mujoco/sensor/framepos", "name objtype objname reftype refname cutoff noise user"},
    {"mujoco/sensor/framequat", "name objtype objname reftype refname cutoff noise user"},
    {"mujoco/sensor/framexaxis", "name objtype objname reftype refname cutoff noise user"},
    {"mujoco/sensor/frameyaxis", "name objtype objname reftype refname cutoff noise user"},
    {"mujoco/sensor/framezaxis", "name objtype objname reftype refname cutoff noise user"},
    {"mujoco/sensor/framelinvel", "name objtype objname reftype refname cutoff noise user"},
    {"mujoco/sensor/frameangvel", "name objtype objname reftype refname cutoff noise user"},
    {"mujoco/sensor/framelinacc", "name objtype objname cutoff noise user"},
    {"mujoco/sensor/frameangacc", "name objtype objname cutoff noise user"},
    {"mujoco/sensor/subtreecom", "name body cutoff noise user"},
    {"mujoco/sensor/subtreelinvel", "name body cutoff noise user"},
    {"mujoco/sensor/subtreeangmom", "name body cutoff noise user"},
    {"mujoco/sensor/clock", "name cutoff noise user"},
    {"mujoco/sensor/user", "name objtype objname datatype needstage dim cutoff noise user"},
    {"mujoco/keyframe", ""},
    {"mujoco/keyframe/key", "name time qpos qvel act mpos mquat ctrl"},
};

#endif
