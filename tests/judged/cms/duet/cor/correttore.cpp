// CMS's checker protocol: correttore INPUT CORRECT_OUTPUT CONTESTANT_OUTPUT;
// the score (0..1) on stdout, the message on stderr; half a point per line
#include <cstdio>
int main(int argc, char **argv)
{
    if (argc != 4)
        return 1;
    FILE *ok = fopen(argv[2], "r"), *out = fopen(argv[3], "r");
    if (!ok || !out)
        return 1;
    long long want[2], got[2];
    if (fscanf(ok, "%lld %lld", &want[0], &want[1]) != 2)
        return 1;
    double score = 0;
    for (int i = 0; i < 2; i++)
        if (fscanf(out, "%lld", &got[i]) == 1 && got[i] == want[i])
            score += 0.5;
    printf("%g\n", score);
    fprintf(stderr, "%s\n", score == 1 ? "translate:success" : score > 0 ? "translate:partial" : "translate:wrong");
    return 0;
}
