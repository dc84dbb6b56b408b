/*
 * fuzz_language.c - libFuzzer target: a language file (languages/ID.yaml).
 *
 * The input is the file's text, given to rn_language_parse, the loader's
 * whole YAML path (it shares yaml_doc.c with problem.yaml). Run with ASan +
 * UBSan; see README.md "Fuzzing".
 */
#include <stdlib.h>

#include "internal.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    struct common_errors errs = {0};
    struct rn_language *l = NULL;
    if (rn_language_parse((const char *)data, size, "fuzz.yaml", &l, &errs) == 0) {
        /* what the runner does with a loaded language */
        for (size_t s = 0; s < l->compile_steps; s++)
            rn_argv_free(rn_argv_expand(l->compile[s], 256ULL << 20, NULL));
        rn_argv_free(rn_argv_expand(l->run, 256ULL << 20, NULL));
        rn_language_free(l);
    }
    for (size_t i = 0; i < errs.count; i++)
        for (const unsigned char *c = (const unsigned char *)errs.items[i]; *c; c++)
            if (*c < 0x20 || *c == 0x7f)
                abort();
    common_errors_free(&errs);
    return 0;
}
