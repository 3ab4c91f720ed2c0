// SPDX-License-Identifier: Apache-2.0
// Public MJCF entry points: file or memory -> XML tree -> includes -> spec -> compiled model
// (the loader, src/mjcf/), then the model constants that need the dynamics at qpos0.
#include <string.h>

#include <gradyn/gradyn.h>

#include "constraint/constraint.h"
#include "dynamics/actuator_setconst.h"
#include "mjcf/compile.h"
#include "mjcf/reader.h"
#include "mjcf/schema.h"
#include "mjcf/xml_tree.h"

#define GDN_LOADER_MEMORY_LIMIT ((size_t)1 << 30) // loader scratch, not the model

// parse, resolve includes, read and compile one document held in memory
static gdnStatus load_document(gdnXmlContext* ctx, const char* xml, size_t len, const char* file,
                               const char* dir, gdnModel** m) {
    gdnXmlElem* root = gdn_xml_parse(ctx, xml, len, file, dir);
    if (!root) {
        return ctx->diag->status;
    }
    if (gdn_xml_resolve_includes(ctx, root) != GDN_OK) {
        return ctx->diag->status;
    }
    if (gdn_mjcf_schema_check(ctx->diag, root) != GDN_OK) {
        return ctx->diag->status;
    }
    gdnSpec spec;
    if (gdn_spec_init(&spec, ctx->pool, ctx->diag) != GDN_OK) {
        return ctx->diag->status;
    }
    if (gdn_mjcf_read(&spec, root) != GDN_OK) {
        return ctx->diag->status;
    }
    *m = gdn_compile_model(&spec);
    if (!*m && ctx->diag->status == GDN_OK) {
        gdn_diag_error(ctx->diag, GDN_ERR_MODEL, file, 0, NULL, "compilation failed");
    }
    // constraint constants at qpos0 (invweight0, meaninertia, derived eq_data): kinematics and
    // CRB of the compiled model, as MuJoCo's mj_setConst
    if (*m && gdn_constraint_set_const(*m) != GDN_OK) {
        gdn_diag_error(ctx->diag, GDN_ERR_MEMORY, file, 0, NULL,
                       "out of memory (constraint weights)");
    }
    // the muscles' length ranges (MuJoCo's compiler runs mj_setLengthRange after mj_setConst)
    if (*m && ctx->diag->status == GDN_OK) {
        char msg[256] = "";
        gdnStatus st = gdn_actuator_length_range(*m, &spec.compiler.lengthrange, msg, sizeof msg);
        if (st != GDN_OK) {
            gdn_diag_error(ctx->diag, st, file, 0, NULL, "%s",
                           st == GDN_ERR_MEMORY ? "out of memory (length range)" : msg);
        }
    }
    return ctx->diag->status;
}

gdnStatus gdn_load_xml(const char* path, gdnModel** m, char* err, int err_size, char* warn,
                       int warn_size) {
    return gdn_load_xml_ex(path, NULL, m, err, err_size, warn, warn_size);
}

gdnStatus gdn_load_xml_string(const char* xml, size_t len, const char* dir, gdnModel** m,
                              char* err, int err_size, char* warn, int warn_size) {
    return gdn_load_xml_string_ex(xml, len, dir, NULL, m, err, err_size, warn, warn_size);
}

gdnStatus gdn_load_xml_ex(const char* path, const gdnLoadOptions* opt, gdnModel** m, char* err,
                          int err_size, char* warn, int warn_size) {
    gdnDiag diag;
    gdn_diag_init(&diag, err, err_size, warn, warn_size);
    diag.accept_unsupported = opt && opt->accept_unsupported;
    if (!m) {
        return gdn_diag_error(&diag, GDN_ERR_ARG, NULL, 0, NULL, "model pointer is NULL");
    }
    *m = NULL;
    if (!path || !path[0]) {
        return gdn_diag_error(&diag, GDN_ERR_ARG, NULL, 0, NULL, "no file name");
    }
    gdnPool pool;
    gdn_pool_init(&pool, GDN_LOADER_MEMORY_LIMIT);
    gdnXmlContext ctx = {&pool, &diag, 0, 0};
    size_t len = 0;
    char* text = gdn_xml_read_file(&ctx, path, &len, NULL, 0);
    char* dir = text ? gdn_xml_dirname(&pool, path) : NULL;
    if (text && !dir) {
        gdn_diag_error(&diag, GDN_ERR_MEMORY, path, 0, NULL, "out of memory");
    }
    if (text && dir) {
        load_document(&ctx, text, len, path, dir, m);
    }
    gdn_pool_free(&pool);
    if (diag.status != GDN_OK) {
        gdn_model_free(*m);
        *m = NULL;
    }
    return diag.status;
}

gdnStatus gdn_load_xml_string_ex(const char* xml, size_t len, const char* dir,
                                 const gdnLoadOptions* opt, gdnModel** m, char* err,
                                 int err_size, char* warn, int warn_size) {
    gdnDiag diag;
    gdn_diag_init(&diag, err, err_size, warn, warn_size);
    diag.accept_unsupported = opt && opt->accept_unsupported;
    if (!m) {
        return gdn_diag_error(&diag, GDN_ERR_ARG, NULL, 0, NULL, "model pointer is NULL");
    }
    *m = NULL;
    if (!xml && len) {
        return gdn_diag_error(&diag, GDN_ERR_ARG, NULL, 0, NULL, "xml is NULL");
    }
    gdnPool pool;
    gdn_pool_init(&pool, GDN_LOADER_MEMORY_LIMIT);
    gdnXmlContext ctx = {&pool, &diag, 0, 0};
    load_document(&ctx, xml, len, "<string>", dir && dir[0] ? dir : ".", m);
    gdn_pool_free(&pool);
    if (diag.status != GDN_OK) {
        gdn_model_free(*m);
        *m = NULL;
    }
    return diag.status;
}
