/*
 * cms.h - private to judged/store: CMS task packages (cms.c reads the
 * Italian YAML layout, task.yaml; cms_tps.c IOI's TPS exports,
 * problem.json) into one model of the task, which cms.c writes as the
 * runner's problem.yaml. runner/README.md, "CMS task packages".
 */
#ifndef JUDGED_STORE_CMS_H
#define JUDGED_STORE_CMS_H

#include <stdbool.h>
#include <stddef.h>

#include "convert.h"
#include "store.h"

#define CMS_MAX_TESTS 10000
#define CMS_MAX_SUBTASKS 1000   /* the runner's bound */

/* How a subtask's test fractions make its score (CMS's score types). */
enum cms_aggregate { CMS_AGG_MIN, CMS_AGG_MUL, CMS_AGG_THRESHOLD };

struct cms_subtask {
    double points;
    enum cms_aggregate aggregate;
    double threshold;        /* GroupThreshold's T */
    int *tests;              /* indices into cms_task.tests */
    int ntests;
};

struct cms_test {
    char name[64];           /* the runner's test name (CMS's codename) */
    char in[300], out[300];  /* paths in the package */
};

/* A solution whose expected result the package states (TPS's
 * solutions.json): the verify folder it goes to. */
struct cms_solution {
    char file[256];
    const char *folder;      /* accepted, wrong_answer, ... (static) */
};

enum cms_type { CMS_BATCH, CMS_OUTPUT_ONLY, CMS_COMMUNICATION };

struct cms_task {
    const char *file;        /* task.yaml or problem.json: messages name it */
    char name[128];          /* the task's short name: the submission's file */
    char title[512];
    double time_limit;       /* seconds; 0: not given */
    unsigned long long memory;   /* bytes; 0: not given */
    char infile[256], outfile[256];   /* "": stdin / stdout */
    enum cms_type type;
    int processes;           /* Communication */
    bool fifo_io;            /* Communication: user_io fifo_io */
    struct cms_test *tests;
    int ntests;
    struct cms_subtask *subtasks;
    int nsubtasks;
    char checker[300];       /* the checker's source, or "" */
    char manager[300];       /* Communication: the manager's source */
    struct cms_solution *solutions;   /* NULL: every solution is accepted */
    int nsolutions;
};

void cms_task_free(struct cms_task *t);
/* Adds a subtask of n tests (copied); -1 past CMS_MAX_SUBTASKS (reported). */
int cms_add_subtask(struct cms_task *t, double points, enum cms_aggregate agg, double threshold,
                    const int *tests, int n, struct conv_errs *e);
/* The first of names[] (each "DIR/BASE") with one of the source endings
 * CMS compiles, into rel; a compiled program without its source is an
 * error naming it. 1 found, 0 none, -1 error. */
int cms_find_source(const char *dir, const char *const *names, char *rel, size_t len, struct conv_errs *e);
/* Writes problem.yaml (and the package's own solutions as submissions/,
 * the Python grader's entry point) from t, graders and solutions found in
 * sol_dir (CMS: sol/; TPS: graders/ and solutions/). */
void cms_write(const char *dir, const char *pushed_name, struct cms_task *t, const char *grader_dir,
               const char *solutions_dir, struct conv_errs *e);

/* gen/GEN's tests, in order (cms.c reads them, cms_gen.c runs them). */
struct cms_gen_test {
    int line;                /* of gen/GEN */
    char *args;              /* the generator's arguments (blank-separated) */
    char *copy;              /* "#COPY: FILE": the package's file that is the input; NULL */
    int subtask;             /* 1 + its "#ST:" marker's index; 0: before the first */
};
struct cms_gen {
    struct cms_gen_test *tests;
    int n;
};
void cms_gen_free(struct cms_gen *g);
/* Whether the package holds none of n tests' inputs: its generator makes
 * them at push. */
bool cms_gen_needed(const char *dir, int n);
/* Makes input/inputN.txt with the package's generator (gen/generatore.*,
 * gen/generator.*) run once per gen/GEN line (or the #COPY file), checks
 * each with its validator (gen/valida.*, gen/validator.*) when there is
 * one, and output/outputN.txt with its official solution (sol/soluzione.*,
 * sol/solution.*) unless the package holds it; through tools (NULL: the
 * package is refused, saying where it can be pushed). Errors name GEN's
 * line. */
void cms_generate(const char *dir, const struct cms_task *t, const struct cms_gen *g,
                  const struct store_tools *tools, struct conv_errs *e);

/* Either layout, by task.yaml or problem.json (cms.c). */
bool cms_detect(const char *dir);
int cms_convert(const char *dir, const char *name, const struct store_tools *tools, char **errors);
/* TPS exports (cms_tps.c). */
bool cms_tps_detect(const char *dir);
int cms_tps_convert(const char *dir, const char *name, char **errors);

#endif
