/* SPDX-License-Identifier: Apache-2.0 */
/*
 * complement, right_inverse, left_inverse and nullspace: every case of the
 * shared vectors for these ops as a table row (compared by the vector's cmp
 * rule), rejections with a reason, then laws checked by brute-force
 * evaluation on seeded random layouts with integer and scaled-basis strides
 * (docs/algebra.md names each law).
 */
#include "testlib.h"

enum { FUNCTION, RIGHT_INVERSE, LEFT_INVERSE, ERROR };

typedef struct complement_row {
    const char *a;
    int64_t n;
    const char *b;
    const char *expect;
} complement_row;

typedef struct inverse_row {
    const char *a;
    const char *expect;
    int cmp;
} inverse_row;

/* ---- the shared vectors (vectors/cute.jsonl) ---------------------------- */

static const complement_row complement_rows[] = {
    {"1:0", 5, NULL, "5:1"},
    {"12:1", 128, NULL, "11:12"},
    {"4:2", 19, NULL, "(2,3):(1,8)"},
    {"12:2", 128, NULL, "(2,6):(1,24)"},
    {"12:2", 1, NULL, "2:1"},
    {"1:2", 2, NULL, "2:1"},
    {"4:4", -1, NULL, "4:1"},
    {"((2,2),(2,2)):((1,4),(8,32))", -1, NULL, "(2,2):(2,16)"},
    {"64:1", -1, "(32,4,4)", "8:64"},
    {"1:2", -1, "(2,2)", "4:1"},
    {"12:1", 1, NULL, "1:0"},
    {"12:1", -1, NULL, "1:0"},
    {"4:2", 16, NULL, "(2,2):(1,8)"},
    {"1:1", 2, NULL, "2:1"},
    {"4:1", 2, NULL, "1:0"},
    {"4:2", -1, NULL, "2:1"},
    {"4:0", 8, NULL, "8:1"},
    {"(4,2):(1,10)", -1, NULL, "2:4"},
    {"4:4", -1, "(2,2)", "4:1"},
    {"(2,4):(1,6)", -1, NULL, "3:2"},
    {"(2,3):(1,2)", -1, NULL, "1:0"},
    {"1:2", 1, NULL, "1:0"},
    {"12:2", 53, NULL, "(2,3):(1,24)"},
    {"(3,6):(1,10)", -1, NULL, "3:3"},
    {"4:2", -1, "(2,2)", "2:1"},
    {"1:2", 5, NULL, "5:1"},
    {"1:1", 5, NULL, "5:1"},
    {"(4,2):(1,16)", -1, NULL, "4:4"},
    {"4:2", 1, NULL, "2:1"},
    {"(2,4,8):(8,1,0)", 460, NULL, "(2,29):(4,16)"},
    {"4:1", 1, NULL, "1:0"},
    {"(2,4):(1,4)", -1, NULL, "2:2"},
    {"1:2", 8, NULL, "8:1"},
    {"(2,4,8):(8,1,64)", -1, NULL, "(2,4):(4,16)"},
    {"(4,2):(1,6)", -1, NULL, "1:12"},
    {"((2,2),(2,2)):((1,32),(8,4))", 46, NULL, "(2,2):(2,16)"},
    {"(2,4,6):(1,2,8)", -1, NULL, "1:48"},
    {"(2,4,8):(8,1,64)", 460, NULL, "(2,4):(4,16)"},
    {"(4,2):(1,5)", -1, NULL, "1:10"},
    {"5:1", -1, NULL, "1:5"},
    {"(2,4,6):(4,1,8)", -1, NULL, "1:48"},
    {"(1,1):(0,0)", -1, NULL, "1:1"},
    {"(4,2):(1,16)", 20, NULL, "4:4"},
    {"4:4", 13, NULL, "4:1"},
    {"1:0", 1, NULL, "1:1"},
    {"5:3", -1, NULL, "(3,1):(1,15)"},
    {"4:1", -1, NULL, "1:4"},
    {"((2,2),(2,2)):((1,4),(8,32))", 46, NULL, "(2,2):(2,16)"},
    {"(2,4,8):(32,0,2)", -1, NULL, "(2,2,1):(1,16,64)"},
    {"(4,2):(1,11)", -1, NULL, "(2,1):(4,22)"},
    {"(2,4,8):(2,0,32)", -1, NULL, "(2,8,1):(1,4,256)"},
    {"(2,4):(1,4)", 14, NULL, "2:2"},
    {"1:1", 1, NULL, "1:1"},
    {"3:2", -1, "(2,3)", "2:1"},
    {"(2,4,8):(8,1,0)", -1, "12", "2:4"},
    {"(2,5,3):(4@1,5@0,16@1)", -1, NULL,
     "((5,1),(4,2,1)):((1@0,25@0),(1@1,8@1,48@1))"},
    {"(2,3):(1@0,1@1)", -1, "(4,6)", NULL},
    {"():()", -1, "128", "128:1"},
    {"(4,2):(1,16)", -1, "20", "4:4"},
    {"3:1@0", -1, NULL, "(1):(3@0)"},
    {"4:4", -1, "13", "4:1"},
    {"(2,4,8):(8,1,64)", -1, "460", "(2,4):(4,16)"},
    {"1:2", -1, "5", "5:1"},
    {"1:1", -1, "1", "1:1"},
    {"4:4", -1, "1", "4:1"},
    {"4:1", -1, "1", "1:4"},
    {"1:2", -1, "8", "8:1"},
    {"((2,2),(2,2)):((1,4),(8,32))", -1, "46", "(2,2):(2,16)"},
    {"(4,2):(1,10)", -1, "14", "2:4"},
    {"1:2", -1, "2", "2:1"},
    {"1:2", -1, "1", "1:1"},
    {"4:2", -1, "19", "(2,3):(1,8)"},
    {"3:0", -1, "6", "6:1"},
    {"4:2", -1, "7", "2:1"},
    {"1:0", -1, "2", "2:1"},
    {"3:2", -1, "24", "(2,4):(1,6)"},
    {"(2,4,8):(8,1,0)", -1, "460", "(2,29):(4,16)"},
    {"3:1", -1, "3", "1:3"},
    {"3:4@2", -1, NULL, "(1,1,(4,1)):(1@0,1@1,(1@2,12@2))"},
    {"(2,1,5,3):(4@1,0,5@0,16@1)", -1, NULL,
     "((5,1),(4,2,1)):((1@0,25@0),(1@1,8@1,48@1))"},
    {"3:2", -1, "6:1", "2:1"},
    {"4:0", -1, "2", "2:1"},
    {"3:2", -1, "6", "2:1"},
    {"6:4", 24, NULL, "4:1"},
    {"(4,8):(1,8)", -1, NULL, "(2,1):(4,64)"},
    {"(4,8):(1,4)", -1, NULL, "1:32"},
    {"4:1", 24, NULL, "6:4"},
    {"(4,8):(1,4)", 32, NULL, "1:32"},
    {"(4,8):(1,8)", 64, NULL, "(2,1):(4,64)"},
    {"(2,2):(1,6)", 24, NULL, "(3,2):(2,12)"},
    {"4:2", 24, NULL, "(2,3):(1,8)"},
    {"(2,4):(1,6)", 24, NULL, "3:2"},
    {"(4,6):(1,4)", 24, NULL, "1:0"},
};
static const inverse_row right_inverse_rows[] = {
    {"(((((32,4),1),(32,2)),4),1,(2,2),2):(((((262144,4),0),(0,1)),8388608),0,("
     "2,16),32)",
     "(2,2,4,4):(4096,32768,32,65536)", RIGHT_INVERSE},
    {"(2,4):(0,2)", "1:0", RIGHT_INVERSE},
    {"(4):(0)", "1:0", RIGHT_INVERSE},
    {"(8,4):(4,1)", "(4,8):(8,1)", RIGHT_INVERSE},
    {"(128,3,160):(65536,512,1)", "160:384", RIGHT_INVERSE},
    {"(4,2):(1,5)", "4:1", RIGHT_INVERSE},
    {"(4):(1)", "4:1", RIGHT_INVERSE},
    {"(4,2):(1,4)", "8:1", RIGHT_INVERSE},
    {"(8,4):(1,8)", "32:1", RIGHT_INVERSE},
    {"(2,2,2):(4,0,1)", "2:4", RIGHT_INVERSE},
    {"1:1", "1:0", RIGHT_INVERSE},
    {"1:0", "1:0", RIGHT_INVERSE},
    {"(128,64):(131072,2)", "1:0", RIGHT_INVERSE},
    {"(32,4,4,4):(262144,4,8388608,1)", "(4,4):(512,32)", RIGHT_INVERSE},
    {"((3,7)):((0,0))", "1:0", RIGHT_INVERSE},
    {"(128,128):(65536,1)", "128:128", RIGHT_INVERSE},
    {"(4):(-1)", "1:0", RIGHT_INVERSE},
    {"(2,4,6):(4,1,8)", "(4,2,6):(2,1,8)", RIGHT_INVERSE},
    {"(2,4):(4,1)", "(4,2):(2,1)", RIGHT_INVERSE},
    {"((1,1)):((0,0))", "1:0", RIGHT_INVERSE},
    {"(128,160):(65536,1)", "160:128", RIGHT_INVERSE},
    {"():()", "1:0", RIGHT_INVERSE},
    {"(1,1):(0,0)", "1:0", RIGHT_INVERSE},
    {"4:1", "4:1", RIGHT_INVERSE},
    {"(3,7):(0,0)", "1:0", RIGHT_INVERSE},
    {"4:0", "1:0", RIGHT_INVERSE},
    {"4:2", "1:0", RIGHT_INVERSE},
    {"1:4", "1:0", RIGHT_INVERSE},
    {"1:2", "1:0", RIGHT_INVERSE},
    {"((2,4),(3,5)):((4,1),(2,8))", "(4,2,5):(2,1,24)", RIGHT_INVERSE},
    {"(2,3):(0,1@0)", "(3):(2)", FUNCTION},
    {"((2,2,2),(2,2,2)):((1@0,2@1,5@0),(1@1,2@0,5@1))",
     "((2,2),(2,2)):((1,16),(8,2))", FUNCTION},
    {"(4,5):(1@1,1@0)", "(5,4):(4,1)", FUNCTION},
    {"((2,2,2),(2,2,2)):((1@0,2@1,5@0),(1@1,2@0,4@1))",
     "((2,2),(2,2,2)):((1,16),(8,2,32))", FUNCTION},
    {"(4,5):(1@1,1@1@4)", "(1,4,1,1,(1,5)):(0,1,0,0,(0,4))", FUNCTION},
    {"(4,5):(2@0,2@1)", "(1,1):(0,0)", FUNCTION},
    {"(4,3):(1,4)", "12:1", RIGHT_INVERSE},
    {"(4,5):(1@0,1@1)", "(4,5):(1,4)", FUNCTION},
    {"((4,2),4):((1@1,4@0),1@0)", "((4,2),4):((8,4),1)", FUNCTION},
    {"(2,3):(1@0,1@1)", "(2,3):(1,2)", FUNCTION},
    {"((2,4),3):((1,2),8)", "24:1", RIGHT_INVERSE},
    {"((2,2,2),(2,2,2)):((1@0,2@1,4@0),(1@1,2@0,4@1))",
     "((2,2,2),(2,2,2)):((1,16,4),(8,2,32))", FUNCTION},
    {"(((16,4),64),1,1):(((1@1,32@1),2@0),0,0)", "(1,16):(0,1)", FUNCTION},
    {"(4,1,5):(1@0,0,1@1)", "(4,5):(1,4)", FUNCTION},
    {"(3,7,5):(5,15,1)", "(5,21):(21,1)", RIGHT_INVERSE},
    {"(4,8):(8,1)", "(8,4):(4,1)", RIGHT_INVERSE},
};
static const inverse_row left_inverse_rows[] = {
    {"((3,7)):((0,0))", "21:0", LEFT_INVERSE},
    {"(2,4,6):(1,2,8)", "48:1", LEFT_INVERSE},
    {"(((((32,4),1),(32,2)),4),1,(2,2),2):(((((262144,4),0),(0,1)),8388608),0,("
     "2,16),32)",
     "(2,2,4,16384,32,4):(4096,32768,32,65536,1,8192)", LEFT_INVERSE},
    {"(128,64):(131072,2)", "(2,65536,128):(0,128,1)", LEFT_INVERSE},
    {"(2,4,4,6):(4,1,0,8)", "(4,2,6):(2,1,32)", LEFT_INVERSE},
    {"(32,4,4,4):(262144,4,8388608,1)", "(4,65536,32,4):(512,32,1,128)",
     LEFT_INVERSE},
    {"(128,160):(65536,1)", "(65536,128):(128,1)", LEFT_INVERSE},
    {"(2,4,6):(4,1,8)", "(4,2,6):(2,1,8)", LEFT_INVERSE},
    {"1:1", "1:0", LEFT_INVERSE},
    {"(128,128):(65536,1)", "(65536,128):(128,1)", LEFT_INVERSE},
    {"(8,4):(4,1)", "(4,8):(8,1)", LEFT_INVERSE},
    {"(8,4):(1,8)", "32:1", LEFT_INVERSE},
    {"(4):(2)", "(2,4):(0,1)", LEFT_INVERSE},
    {"1:0", "1:0", LEFT_INVERSE},
    {"(4,2):(1,16)", "(16,2):(1,4)", LEFT_INVERSE},
    {"(2,2,2):(4,0,1)", "(4,2):(4,1)", LEFT_INVERSE},
    {"(2,4):(0,2)", "(2,4):(0,2)", LEFT_INVERSE},
    {"(2,4,4,4,2):(32,0,2,0,512)", "(2,16,16,2):(0,8,1,128)", LEFT_INVERSE},
    {"(4,2):(1,11)", "(11,2):(1,4)", LEFT_INVERSE},
    {"(4,2):(1,10)", "(10,2):(1,4)", LEFT_INVERSE},
    {"(1,1):(0,0)", "1:0", LEFT_INVERSE},
    {"(32,12):(65536,1)", "(65536,32):(32,1)", LEFT_INVERSE},
    {"(2,4,8):(2,0,32)", "(2,16,8):(0,1,8)", LEFT_INVERSE},
    {"4:1", "4:1", LEFT_INVERSE},
    {"4:4", "(4,4):(0,1)", LEFT_INVERSE},
    {"(2,4,8):(32,0,2)", "(2,16,2):(0,8,1)", LEFT_INVERSE},
    {"((2,4),3):((1,2),8)", "24:1", LEFT_INVERSE},
    {"(4,3):(1,4)", "12:1", LEFT_INVERSE},
    {"(4,1,5):(1@0,0,1@1)", "(4,5):(1,4)", FUNCTION},
    {"(2,3):(1@0,1@1)", "(2,3):(1,2)", FUNCTION},
    {"(4,5):(1@1,1@1@4)", "(1,4,1,1,(1,5)):(0,1,0,0,(0,4))", FUNCTION},
    {"(8,4,2):(13,2,1)", NULL, ERROR},
    {"(2,3):(0,1@0)", "(3):(2)", FUNCTION},
    {"8:1", "8:1", LEFT_INVERSE},
    {"((2,2,2),(2,2,2)):((1@0,2@1,6@0),(1@1,2@0,4@1))",
     "((2,3,2),(2,2,2)):((1,16,4),(8,2,32))", FUNCTION},
    {"((2,2,2),(2,2,2)):((1@0,2@1,4@0),(1@1,2@0,4@1))",
     "((2,2,2),(2,2,2)):((1,16,4),(8,2,32))", FUNCTION},
    {"(((((2,4),1),(2,2)),4),1,(2,2),2):(((((262144,4),0),(0,1)),8388608),0,(2,"
     "16),32)",
     "(2,2,4,16384,128):(16,128,2,256,1)", LEFT_INVERSE},
    {"(4,8):(1,5)", "(5,8):(1,4)", LEFT_INVERSE},
};
static const inverse_row nullspace_rows[] = {
    {"(2,2,2):(1,0,2)", "2:2", FUNCTION},
    {"(2,2,2):(0,0,0)", "(2,2,2):(1,2,4)", FUNCTION},
    {"(7,5,16):(3,1,0)", "16:35", FUNCTION},
};

/* Rejections outside the vectors: op, a, cotarget (complement), status. */
typedef struct reject_row {
    const char *op;
    const char *a;
    int64_t n;
    axe_status status;
} reject_row;

static const reject_row reject_rows[] = {
    {"complement", "(2,2):(1,1)", -1, AXE_ERR_NOT_INJECTIVE},
    {"complement", "(4,3):(1,2)", 24, AXE_ERR_NOT_INJECTIVE},
    {"complement", "(3,2):(2,3)", -1, AXE_ERR_DOMAIN},
    {"complement", "(4,2):(-1,4)", -1, AXE_ERR_DOMAIN},
    {"complement", "4:1", 0, AXE_ERR_DOMAIN},
    {"complement", "2:4611686018427387904", -1, AXE_ERR_OVERFLOW},
    {"complement", "4:2", INT64_MAX, AXE_ERR_OVERFLOW},
    {"complement", "(2,2):(1,1@0)", -1, AXE_ERR_UNSUPPORTED},
    {"complement", "(2,2):(1@1,1@0@1)", -1, AXE_ERR_UNSUPPORTED},
    {"complement", "2:1@200", -1, AXE_ERR_CAPACITY},
    {"complement_extended", "(2,2):(1,1)", -1, AXE_ERR_NOT_INJECTIVE},
    {"complement_extended", "(3,2):(2,3)", -1, AXE_ERR_DOMAIN},
    {"complement_extended", "(4,2):(-1,4)", -1, AXE_ERR_DOMAIN},
    {"complement_extended", "4:1", 0, AXE_ERR_DOMAIN},
    {"complement_extended", "4:2", INT64_MAX, AXE_ERR_OVERFLOW},
    {"complement_extended", "(2,2):(1,1@0)", -1, AXE_ERR_UNSUPPORTED},
    {"right_inverse", "(2,2):(1,1@0)", -1, AXE_ERR_UNSUPPORTED},
    {"right_inverse", "(65536,65536,65536,65536):(1,1,1,1)", -1,
     AXE_ERR_OVERFLOW},
    {"left_inverse", "(8,4,2):(13,2,1)", -1, AXE_ERR_DIVISIBILITY},
    {"left_inverse", "(2,2):(1,1)", -1, AXE_ERR_NOT_INJECTIVE},
    {"left_inverse", "(4,3):(1,2)", -1, AXE_ERR_NOT_INJECTIVE},
    {"left_inverse", "(4):(-1)", -1, AXE_ERR_DOMAIN},
    {"left_inverse", "(64,64):(65,64)", -1, AXE_ERR_UNSUPPORTED},
    {"left_inverse", "(2,2):(40000,40001)", -1, AXE_ERR_UNSUPPORTED},
    {"left_inverse", "(4,3):(2,3)", -1, AXE_ERR_NOT_INJECTIVE},
    {"nullspace", "(2,2):(1,-1)", -1, AXE_ERR_UNSUPPORTED},
    {"nullspace", "(2,3,4):(3,-2,0)", -1, AXE_ERR_UNSUPPORTED},
    {"nullspace", "(2,2):(4611686018427387904,4611686018427387904)", -1,
     AXE_ERR_OVERFLOW},
};

/* Results whose printed form is pinned (the codomain structure); "b" a
 * shape cotarget of complement. */
typedef struct exact_row {
    const char *op;
    const char *a;
    int64_t n;
    const char *b;
    const char *expect;
} exact_row;

static const exact_row exact_rows[] = {
    {"complement", "(4,8):(1,8)", 128, NULL, "(2,2):(4,64)"},
    {"complement", "(2,1,5,3):(4@1,0,5@0,16@1)", -1, NULL,
     "(5,(4,2)):(1@0,(1@1,8@1))"},
    {"complement", "3:4@2", -1, NULL, "(1,1,4):(0,0,1@2)"},
    {"complement", "(3,2):(2@2@1,6@2@1)", -1, NULL,
     "(1,(1,1,2)):(0,(0,0,1@2@1))"},
    {"complement", "():()", 128, NULL, "128:1"},
    {"complement", "4:1@0", 12, NULL, "(3):(4@0)"},
    {"complement", "(4,3):(1@0,1@1)", 120, NULL, "(1,10):(0,3@1)"},
    {"complement", "(4,3):(2@0,1@1)", 120, NULL, "(2,5):(1@0,3@1)"},
    {"complement", "2:64@0", -1, "(128,64)", "(64,64):(1@0,1@1)"},
    {"complement", "(2,3):(1@0,1@1)", -1, "(4,6)", "(2,2):(2@0,3@1)"},
    {"complement", "(2,2):(1@0,1@1@2)", -1, "(4,3,10)",
     "(2,3,(1,5)):(2@0,1@1,(0,2@1@2))"},
    {"complement", "(2,2):(1@0,1@1@2)", -1, "(4,30)",
     "(2,1,(1,15)):(2@0,0,(0,2@1@2))"},
    {"complement", "(4,2):(1,4)", -1, "(4,6)", "3:8"},
    /* the CuTe paper's Table 7 and the extended complement's edges */
    {"complement_extended", "(4,8):(1,4)", -1, NULL, "1:32"},
    {"complement_extended", "(4,8):(1,8)", -1, NULL, "(2,1):(4,64)"},
    {"complement_extended", "(4,8):(1,8)", 128, NULL, "(2,2):(4,64)"},
    {"complement_extended", "(4,8):(1,8)", 200, NULL, "(2,4):(4,64)"},
    {"complement_extended", "1:0", -1, NULL, "1:1"},
    {"complement_extended", "():()", 128, NULL, "128:1"},
    {"complement_extended", "(2,4):(4,16)", -1, NULL, "(4,2,1):(1,8,64)"},
    {"complement_extended", "4:2", 19, NULL, "(2,3):(1,8)"},
    {"complement_extended", "(4,3):(1@0,1@1)", -1, NULL, "(1,1):(4@0,3@1)"},
    {"right_inverse", "(4,5):(1@1,1@1@4)", -1, NULL,
     "(1,4,1,1,(1,5)):(0,1,0,0,(0,4))"},
    {"right_inverse", "(3,7,5):(5,15,1)", -1, NULL, "(5,21):(21,1)"},
    /* not injective: the exhaustive search beats the chain (3:1, 5:1) */
    {"right_inverse", "(3,2):(1,2)", -1, NULL, "(2,2):(1,3)"},
    {"right_inverse", "(5,2):(1,2)", -1, NULL, "(3,2):(1,6)"},
    /* the search's table of a's values overflowed (and wrote before its
     * table of seen values: SIGBUS); value k < 8 is at index 4k */
    {"right_inverse", "(4,8):(4611686018427387904,1)", -1, NULL, "8:4"},
    {"right_inverse", "(3,2):(4611686018427387904,1)", -1, NULL, "2:3"},
    {"right_inverse", "((2,2),(4,2)):((1,8),(2,16))", -1, NULL,
     "(2,4,2,2):(1,4,2,16)"},
    {"left_inverse", "(4,8):(1,5)", -1, NULL, "(5,8):(1,4)"},
    /* strides that do not divide: the exhaustive search */
    {"left_inverse", "(2,2):(2,3)", -1, NULL, "(2,3):(1,1)"},
    {"left_inverse", "(2,2):(2@0,3@0)", -1, NULL, "((2,3)):((1,1))"},
    {"left_inverse", "(3,3):(5,7)", -1, NULL, "(5,5):(1,1)"},
    {"left_inverse", "(2,2,2):(2,0,3)", -1, NULL, "(2,3):(3,1)"},
    {"left_inverse", "(2,2):(100,101)", -1, NULL, "(29,7):(1,-4)"},
    {"left_inverse", "(2,4,8):(2,0,32)", -1, NULL, "(2,16,8):(0,1,8)"},
    {"left_inverse", "((2,2,2),(2,2,2)):((1@0,2@1,6@0),(1@1,2@0,4@1))", -1,
     NULL, "((2,3,2),(2,2,2)):((1,16,4),(8,2,32))"},
    {"nullspace", "(7,5,16):(3,1,0)", -1, NULL, "16:35"},
    {"nullspace", "(2,3,4):(3,-1,0)", -1, NULL, "4:6"},
};

/* Vector rows that the library answers differently, with the reason. */
typedef struct deviation {
    const char *a, *b, *answer, *reason;
} deviation;

static const deviation deviations[] = {
    {"(2,3):(1@0,1@1)", "(4,6)", "(2,2):(2@0,3@1)",
     "CuTe IR's cute.complement op takes integer strides only; the "
     "library complements per basis coordinate, as CuTe's logical_divide "
     "needs (zipped_divide((128,64):(1@1,1@0), 2:64@0) in the vectors)"},
};

/* ---- running one operation --------------------------------------------- */

static axe_status run_op(const char *op, const axe_cute_layout *a, int64_t n,
                         axe_cute_layout *r, axe_diag *d)
{
    axe_diag_clear(d);
    if (strcmp(op, "complement") == 0)
        return axe_cute_complement(a, n, r, d);
    if (strcmp(op, "complement_extended") == 0)
        return axe_cute_complement_extended(a, n, r, d);
    if (strcmp(op, "right_inverse") == 0)
        return axe_cute_right_inverse(a, r, d);
    if (strcmp(op, "left_inverse") == 0)
        return axe_cute_left_inverse(a, r, d);
    return axe_cute_nullspace(a, r, d);
}

static int64_t size_of(const axe_cute_layout *l)
{
    int64_t s;
    return axe_cute_size(l, &s) == AXE_OK ? s : -1;
}

/* The integer value l(i), or -1 (layout values here are >= 0). */
static int64_t iv(const axe_cute_layout *l, int64_t i)
{
    int64_t v;
    return axe_cute_eval(l, i, &v) == AXE_OK ? v : -1;
}

/* cmp `function`: same size and the same point at every index. */
static bool same_function(const axe_cute_layout *r, const axe_cute_layout *e)
{
    int64_t n = size_of(r);
    if (n < 1 || n != size_of(e))
        return false;
    for (int64_t i = 0; i < n; i++) {
        axe_cute_point p, q;
        if (axe_cute_eval_point(r, i, &p) != AXE_OK ||
            axe_cute_eval_point(e, i, &q) != AXE_OK ||
            !axe_cute_point_equal(&p, &q))
            return false;
    }
    return true;
}

/* cmp `right_inverse` (without the size): a(R(k)) == k for k < size(R). */
static bool is_right_inverse(const axe_cute_layout *a, const axe_cute_layout *r)
{
    int64_t n = size_of(r);
    for (int64_t k = 0; k < n; k++) {
        int64_t x = iv(r, k);
        if (x < 0 || iv(a, x) != k)
            return false;
    }
    return n >= 1;
}

/* cmp `left_inverse`: a(R(a(k))) == a(k) for k < size(a). */
static bool is_left_inverse(const axe_cute_layout *a, const axe_cute_layout *r)
{
    int64_t n = size_of(a);
    for (int64_t k = 0; k < n; k++) {
        int64_t y = iv(a, k), x = iv(r, y);
        if (y < 0 || x < 0 || iv(a, x) != y)
            return false;
    }
    return n >= 1;
}

/* ---- the tables --------------------------------------------------------- */

/* A row's result "r" (status "s") against "expect" by rule "cmp". */
static void check_row(const char *op, const char *a_text,
                      const axe_cute_layout *a, axe_status s, const axe_diag *d,
                      const axe_cute_layout *r, const char *expect, int cmp)
{
    axe_cute_layout e;
    bool ok = false;
    if (expect == NULL || cmp == ERROR) {
        TL_CHECK(s != AXE_OK && d->message[0] != '\0',
                 "%s(%s): expected a rejection with a reason, got %s %s", op,
                 a_text, axe_status_name(s), s == AXE_OK ? tl_str(r) : "");
        return;
    }
    if (s != AXE_OK) {
        TL_CHECK(false, "%s(%s): %s (%s), expected %s", op, a_text,
                 axe_status_name(s), d->message, expect);
        return;
    }
    e = tl_layout(expect);
    if (cmp == FUNCTION)
        ok = same_function(r, &e);
    else if (cmp == RIGHT_INVERSE)
        ok = size_of(r) == size_of(&e) && is_right_inverse(a, r);
    else
        ok = is_left_inverse(a, r);
    TL_CHECK(ok, "%s(%s) = %s, expected %s", op, a_text, tl_str(r), expect);
}

/* A complement row: cotarget "n", or the shape "b" (a layout's shape). */
static axe_status run_complement_row(const complement_row *row,
                                     const axe_cute_layout *a,
                                     axe_cute_layout *r, axe_diag *d)
{
    axe_cute_object o;
    axe_diag_clear(d);
    if (row->b == NULL)
        return axe_cute_complement(a, row->n, r, d);
    if (axe_parse_cute(row->b, strlen(row->b), &o, d) != AXE_OK)
        return AXE_ERR_SYNTAX;
    if (o.kind == AXE_CUTE_KIND_LAYOUT)
        return axe_cute_complement_shape(a, &o.layout.shape, r, d);
    if (o.kind == AXE_CUTE_KIND_TUPLE)
        return axe_cute_complement_shape(a, &o.tuple, r, d);
    return AXE_ERR_INVALID;
}

static const deviation *deviation_of(const complement_row *row)
{
    size_t n = sizeof deviations / sizeof deviations[0];
    for (size_t i = 0; i < n; i++)
        if (strcmp(row->a, deviations[i].a) == 0 && row->b != NULL &&
            strcmp(row->b, deviations[i].b) == 0)
            return &deviations[i];
    return NULL;
}

static void test_complement_vectors(void)
{
    size_t n = sizeof complement_rows / sizeof complement_rows[0];
    int ndev = 0;
    for (size_t i = 0; i < n; i++) {
        const complement_row *row = &complement_rows[i];
        const deviation *dev = deviation_of(row);
        axe_cute_layout a = tl_layout(row->a), r;
        axe_diag d;
        axe_status s = run_complement_row(row, &a, &r, &d);
        ndev += dev != NULL;
        check_row("complement", row->a, &a, s, &d, &r,
                  dev ? dev->answer : row->expect, FUNCTION);
    }
    printf("complement vectors: %d answered differently on purpose:\n", ndev);
    for (size_t i = 0; i < sizeof deviations / sizeof deviations[0]; i++)
        printf("  %s with %s: %s\n", deviations[i].a, deviations[i].b,
               deviations[i].reason);
}

static void test_inverse_vectors(const char *op, const inverse_row *rows,
                                 size_t n)
{
    for (size_t i = 0; i < n; i++) {
        axe_cute_layout a = tl_layout(rows[i].a), r;
        axe_diag d;
        axe_status s = run_op(op, &a, -1, &r, &d);
        check_row(op, rows[i].a, &a, s, &d, &r, rows[i].expect, rows[i].cmp);
    }
}

static void test_reject_rows(void)
{
    size_t n = sizeof reject_rows / sizeof reject_rows[0];
    for (size_t i = 0; i < n; i++) {
        const reject_row *row = &reject_rows[i];
        axe_cute_layout a = tl_layout(row->a), r;
        axe_diag d;
        axe_status s = run_op(row->op, &a, row->n, &r, &d);
        TL_CHECK(s == row->status && d.message[0] != '\0',
                 "%s(%s, %lld): %s (%s), expected %s", row->op, row->a,
                 (long long)row->n, axe_status_name(s), d.message,
                 axe_status_name(row->status));
    }
}

static void test_exact_rows(void)
{
    size_t n = sizeof exact_rows / sizeof exact_rows[0];
    for (size_t i = 0; i < n; i++) {
        const exact_row *row = &exact_rows[i];
        axe_cute_layout a = tl_layout(row->a), r;
        axe_tuple b;
        axe_diag d;
        axe_status s;
        if (row->b != NULL) {
            b = tl_tuple(row->b);
            axe_diag_clear(&d);
            s = axe_cute_complement_shape(&a, &b, &r, &d);
        } else {
            s = run_op(row->op, &a, row->n, &r, &d);
        }
        TL_CHECK(s == AXE_OK && strcmp(tl_str(&r), row->expect) == 0,
                 "%s(%s) = %s (%s), expected %s", row->op, row->a,
                 s == AXE_OK ? tl_str(&r) : axe_status_name(s), d.message,
                 row->expect);
    }
}

/* 32 leaves 2:2^(32-i) (no two coalesce): the left inverse needs 33. */
static void test_capacity(void)
{
    axe_cute_layout a, r;
    axe_diag d;
    int64_t shape[32], stride[32];
    axe_tuple ts, td;
    for (int i = 0; i < 32; i++) {
        shape[i] = 2;
        stride[i] = (int64_t)1 << (32 - i);
    }
    if (axe_tuple_from_array(shape, 32, &ts) != AXE_OK ||
        axe_tuple_from_array(stride, 32, &td) != AXE_OK ||
        axe_cute_make(&ts, &td, &a) != AXE_OK) {
        TL_CHECK(false, "cannot build the capacity layout");
        return;
    }
    TL_CHECK(run_op("left_inverse", &a, -1, &r, &d) == AXE_ERR_CAPACITY,
             "left_inverse of 32 modes with stride >= 2: %s", d.message);
    TL_CHECK(run_op("right_inverse", &a, -1, &r, &d) == AXE_OK &&
                 strcmp(tl_str(&r), "1:0") == 0,
             "right_inverse of 32 modes with stride >= 2");
}

/* ---- random layouts ------------------------------------------------------ */

/* The basis coordinates random scaled-basis layouts move, in codomain
 * (preorder) order. */
#define NCODE 5
static const uint32_t codes[NCODE] = {AXE_CUTE_BASIS1(0), AXE_CUTE_BASIS1(1),
                                      AXE_CUTE_BASIS1(2), AXE_CUTE_BASIS2(3, 0),
                                      AXE_CUTE_BASIS2(3, 1)};

/* How random strides are drawn for the leaves moving one coordinate, in a
 * random order with x the extent reached so far: CHAIN: x times 1..3
 * (sorted strides divide each other's extents), GAPPED: x plus 0..x,
 * SMALL: [0, 8], SIGNED: [-8, 8]. */
enum { CHAIN, GAPPED, SMALL, SIGNED };

static void shuffle(int *v, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)tl_range(0, i), t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

static int64_t draw_stride(int kind, int64_t *x, int64_t s)
{
    int64_t d;
    if (kind == SMALL)
        return tl_range(0, 8);
    if (kind == SIGNED)
        return tl_range(-8, 8);
    if (kind == CHAIN)
        d = *x * (tl_range(0, 2) == 0 ? tl_range(1, 3) : 1);
    else
        d = *x + tl_range(0, *x);
    *x = d * s;
    return d;
}

static void assign_strides(axe_cute_layout *l, int *idx, int n, int kind,
                           uint32_t code, bool zeros)
{
    int64_t x = 1;
    shuffle(idx, n);
    for (int i = 0; i < n; i++) {
        int j = idx[i];
        int64_t d = draw_stride(kind, &x, l->shape.v[j]);
        if (zeros && tl_range(0, 7) == 0)
            d = 0;
        l->stride[j] = d;
        l->basis[j] = d == 0 ? 0 : code;
    }
}

/* A random layout of depth <= 3 and size <= "maxsize"; with "basis" each
 * leaf moves one of the first 1..NCODE codes[]. */
static axe_cute_layout random_layout(int maxleaves, int64_t maxsize, int kind,
                                     bool basis, bool zeros)
{
    axe_cute_layout l = tl_random_layout(maxleaves, 3, maxsize, 1, 0);
    int code[AXE_CUTE_MAX_LEAVES], idx[AXE_CUTE_MAX_LEAVES];
    int ncode = basis ? (int)tl_range(1, NCODE) : 1;
    for (int j = 0; j < l.shape.nleaf; j++)
        code[j] = (int)tl_range(0, ncode - 1);
    for (int c = 0; c < ncode; c++) {
        int n = 0;
        for (int j = 0; j < l.shape.nleaf; j++)
            if (code[j] == c)
                idx[n++] = j;
        assign_strides(&l, idx, n, kind, basis ? codes[c] : 0, zeros);
    }
    return l;
}

/* ---- brute force --------------------------------------------------------- */

/* A point of a random layout as a vector: slot 0 the integer part, slot
 * c+1 the coordinate codes[c]; *bad is set for any other basis. */
typedef struct vec {
    int64_t x[NCODE + 1];
} vec;

static vec ev(const axe_cute_layout *l, int64_t i, bool *bad)
{
    axe_cute_point p;
    vec r;
    memset(&r, 0, sizeof r);
    if (axe_cute_eval_point(l, i, &p) != AXE_OK) {
        *bad = true;
        return r;
    }
    for (int k = 0; k < p.n; k++) {
        int c = 0;
        while (c < NCODE && codes[c] != p.basis[k])
            c++;
        if (p.basis[k] == 0)
            r.x[0] = p.v[k];
        else if (c < NCODE)
            r.x[c + 1] = p.v[k];
        else
            *bad = true;
    }
    return r;
}

static bool vec_equal(const vec *a, const vec *b)
{
    return memcmp(a->x, b->x, sizeof a->x) == 0;
}

/* Mixed-radix encoding of vectors with 0 <= x[s] < radix[s]; -1 if out of
 * range. */
static int64_t encode(const vec *v, const int64_t *radix)
{
    int64_t r = 0, w = 1;
    for (int s = 0; s <= NCODE; s++) {
        if (v->x[s] < 0 || v->x[s] >= radix[s])
            return -1;
        r += v->x[s] * w;
        w *= radix[s];
    }
    return r;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The modes of "l" as CuTe's coalesce leaves them: leaves of extent > 1,
 * a leaf merged into the previous one when it has the same basis and
 * stride = previous extent * previous stride. */
static int coalesced(const axe_cute_layout *l, int64_t *s, int64_t *d,
                     uint32_t *b)
{
    int n = 0;
    for (int j = 0; j < l->shape.nleaf; j++) {
        if (l->shape.v[j] == 1)
            continue;
        if (n > 0 && b[n - 1] == l->basis[j] &&
            s[n - 1] * d[n - 1] == l->stride[j]) {
            s[n - 1] *= l->shape.v[j];
            continue;
        }
        s[n] = l->shape.v[j];
        d[n] = l->stride[j];
        b[n++] = l->basis[j];
    }
    return n;
}

/* The modes of "l" of nonzero stride on "code" (0: integer strides),
 * sorted by stride, as (extent, stride) pairs; coalesced first if
 * "merge". */
static int sorted_modes_of(const axe_cute_layout *l, uint32_t code, bool merge,
                           int64_t *s, int64_t *d)
{
    int64_t cs[AXE_CUTE_MAX_LEAVES], cd[AXE_CUTE_MAX_LEAVES];
    uint32_t cb[AXE_CUTE_MAX_LEAVES];
    int n = 0, m = merge ? coalesced(l, cs, cd, cb) : l->shape.nleaf;
    for (int j = 0; j < m; j++) {
        int64_t sj = merge ? cs[j] : l->shape.v[j];
        int64_t dj = merge ? cd[j] : l->stride[j];
        int i = n;
        if (sj == 1 || dj == 0 || (merge ? cb[j] : l->basis[j]) != code)
            continue;
        for (n++; i > 0 && d[i - 1] > dj; i--) {
            s[i] = s[i - 1];
            d[i] = d[i - 1];
        }
        s[i] = sj;
        d[i] = dj;
    }
    return n;
}

static int sorted_modes(const axe_cute_layout *l, uint32_t code, int64_t *s,
                        int64_t *d)
{
    return sorted_modes_of(l, code, false, s, d);
}

/* The sub-layout of the leaves of extent > 1 and nonzero stride, flat. */
static axe_cute_layout filtered(const axe_cute_layout *l)
{
    axe_cute_layout f;
    int n = 0;
    memset(&f, 0, sizeof f);
    f.shape.tok[f.shape.ntok++] = '(';
    for (int j = 0; j < l->shape.nleaf; j++) {
        if (l->shape.v[j] == 1 || l->stride[j] == 0)
            continue;
        f.shape.tok[f.shape.ntok++] = 'x';
        f.shape.v[n] = l->shape.v[j];
        f.stride[n] = l->stride[j];
        f.basis[n++] = l->basis[j];
    }
    f.shape.tok[f.shape.ntok++] = ')';
    f.shape.nleaf = (uint8_t)n;
    return f;
}

/* Encodings of l(0..size) under "radix" into a fresh sorted array. */
static int64_t *sorted_codes(const axe_cute_layout *l, const int64_t *radix,
                             int64_t *n, bool *bad)
{
    int64_t *v;
    *n = size_of(l);
    v = malloc((size_t)*n * sizeof *v);
    if (v == NULL)
        exit(3);
    for (int64_t i = 0; i < *n; i++) {
        vec p = ev(l, i, bad);
        v[i] = encode(&p, radix);
        *bad = *bad || v[i] < 0;
    }
    qsort(v, (size_t)*n, sizeof *v, cmp_i64);
    return v;
}

static bool has_duplicates(const int64_t *v, int64_t n)
{
    for (int64_t i = 1; i < n; i++)
        if (v[i] == v[i - 1])
            return true;
    return false;
}

/* A radix per slot bounding the values of "l" (strides >= 0): 1 + the sum
 * of (s-1) d per slot. */
static void value_radix(const axe_cute_layout *l, int64_t *radix)
{
    for (int s = 0; s <= NCODE; s++)
        radix[s] = 1;
    for (int j = 0; j < l->shape.nleaf; j++) {
        int c = 0;
        while (c < NCODE && codes[c] != l->basis[j])
            c++;
        radix[l->basis[j] == 0 ? 0 : c + 1] +=
            (l->shape.v[j] - 1) * l->stride[j];
    }
}

/* "l" (strides >= 0) is injective. */
static bool injective(const axe_cute_layout *l)
{
    int64_t radix[NCODE + 1], n, *v;
    bool bad = false, dup;
    value_radix(l, radix);
    v = sorted_codes(l, radix, &n, &bad);
    dup = has_duplicates(v, n);
    free(v);
    return !bad && !dup;
}

/* Some leaf of extent > 1 has a nonzero stride on "code". */
static bool present(const axe_cute_layout *a, uint32_t code)
{
    for (int j = 0; j < a->shape.nleaf; j++)
        if (a->shape.v[j] > 1 && a->stride[j] != 0 && a->basis[j] == code)
            return true;
    return false;
}

/* Some leaf of extent > 1 has a nonzero scaled-basis stride (the library's
 * test for a scaled-basis codomain). */
static bool moves_basis(const axe_cute_layout *a)
{
    for (int c = 0; c < NCODE; c++)
        if (present(a, codes[c]))
            return true;
    return false;
}

/* ---- complement laws ----------------------------------------------------- */

/* CuTe's walk over the sorted modes of one coordinate: accepted (no sorted
 * stride below the extent reached), every stride a multiple of that
 * extent, the final extent x and the cosize. */
typedef struct walk {
    bool accept, divisible;
    int64_t x, cosize;
} walk;

static walk walk_modes(const axe_cute_layout *a, uint32_t code)
{
    int64_t s[AXE_CUTE_MAX_LEAVES], d[AXE_CUTE_MAX_LEAVES];
    int n = sorted_modes(a, code, s, d);
    walk w = {true, true, 1, 1};
    for (int i = 0; i < n; i++) {
        if (d[i] < w.x)
            w.accept = false;
        else if (d[i] % w.x != 0)
            w.divisible = false;
        w.x = d[i] * s[i];
        w.cosize += (s[i] - 1) * d[i];
    }
    return w;
}

/* The points of "l" (size "n") as vectors, in a fresh array. */
static vec *points(const axe_cute_layout *l, int64_t *n, bool *bad)
{
    vec *v;
    *n = size_of(l);
    v = malloc((size_t)*n * sizeof *v);
    if (v == NULL)
        exit(3);
    for (int64_t i = 0; i < *n; i++)
        v[i] = ev(l, i, bad);
    return v;
}

/* (f, r) is injective with all values inside "radix" (the box of
 * "total" points), and onto the box if "onto"; r is strictly increasing
 * in the box's encoding. */
static bool pair_laws(const axe_cute_layout *f, const axe_cute_layout *r,
                      const int64_t *radix, int64_t total, bool onto)
{
    int64_t nf, nr, count = 0, prev = -1;
    bool bad = false;
    vec *vf = points(f, &nf, &bad), *vr = points(r, &nr, &bad);
    unsigned char *seen = calloc((size_t)total, 1);
    if (seen == NULL)
        exit(3);
    for (int64_t j = 0; j < nr && !bad; j++) {
        int64_t e = encode(&vr[j], radix);
        bad = e <= prev;
        prev = e;
        for (int64_t i = 0; i < nf && !bad; i++) {
            vec v = vf[i];
            for (int s = 0; s <= NCODE; s++)
                v.x[s] += vr[j].x[s];
            e = encode(&v, radix);
            bad = e < 0 || seen[e];
            if (!bad)
                seen[e] = 1;
            count++;
        }
    }
    free(vf);
    free(vr);
    free(seen);
    return !bad && (!onto || count == total);
}

/* A complement request: the default (shape NULL, m < 0), the scalar "m",
 * or the flat shape s[0..rank). */
typedef struct request {
    int64_t m;
    const int64_t *s;
    int rank;
} request;

/* Box of top-level codomain child "k" (codes[0..2] leaves, codes[3..4]
 * under node 3) complemented w.r.t. "c": ceil(c / x) x per slot, a node
 * flattening "c" over its children. */
static int64_t top_box(int k, int64_t c, const int64_t *x, const bool *pres,
                       int64_t *radix)
{
    if (k < 3) {
        radix[k + 1] = (c + x[k] - 1) / x[k] * x[k];
        return radix[k + 1];
    }
    if (!pres[4]) {
        radix[4] = (c + x[3] - 1) / x[3] * x[3];
        return radix[4];
    }
    radix[4] = x[3];
    c = (c + x[3] - 1) / x[3];
    radix[5] = (c + x[4] - 1) / x[4] * x[4];
    return radix[4] * radix[5];
}

/* The box per slot of a scaled-basis complement for request "q" (not the
 * default): mode k of the shape to top-level child k, the last mode (or the
 * scalar) flattened over the children from it on: each but the last gets 1
 * (its box is its extent x), the last the rest. */
static void basis_radix(const axe_cute_layout *a, const request *q,
                        int64_t *radix)
{
    int64_t x[NCODE], bg = 1, mg;
    bool pres[NCODE];
    int last = -1, n, g = q->rank > 0 ? q->rank - 1 : 0;
    for (int c = 0; c < NCODE; c++) {
        x[c] = walk_modes(a, codes[c]).x;
        pres[c] = present(a, codes[c]);
        if (pres[c] && (c < 3 ? c : 3) > last)
            last = c < 3 ? c : 3;
    }
    for (int k = 0; k <= NCODE; k++)
        radix[k] = 1;
    n = q->rank > last + 1 ? q->rank : last + 1;
    mg = q->rank > 0 ? q->s[g] : q->m;
    for (int k = 0; k < n; k++) {
        bool own = k < g || (q->rank > 0 && n == q->rank);
        int64_t c = own ? q->s[k] : k < n - 1 ? 1 : (mg + bg - 1) / bg;
        int64_t box = top_box(k, c, x, pres, radix);
        if (k >= g)
            bg *= box;
    }
}

/* The result of request "q" and the box it must satisfy its laws in. */
static axe_status run_request(const axe_cute_layout *a, const request *q,
                              bool basis, axe_cute_layout *r, axe_diag *d,
                              int64_t *radix)
{
    axe_tuple t;
    int64_t qm = q->m;
    for (int k = 0; q->s != NULL && k < q->rank; k++)
        qm = k == 0 ? q->s[0] : qm * q->s[k];
    for (int k = 0; k <= NCODE; k++) {
        walk w = walk_modes(a, k == 0 ? 0 : codes[k - 1]);
        int64_t m = qm < 0 ? w.cosize : qm;
        radix[k] = (k == 0) == basis ? 1 : (m + w.x - 1) / w.x * w.x;
    }
    if (basis && (q->m >= 0 || q->s != NULL))
        basis_radix(a, q, radix);
    axe_diag_clear(d);
    if (q->s == NULL)
        return axe_cute_complement(a, q->m, r, d);
    if (axe_tuple_from_array(q->s, q->rank, &t) != AXE_OK)
        return AXE_ERR_INVALID;
    return axe_cute_complement_shape(a, &t, r, d);
}

static int law_skips;

/*
 * complement(a, q): accepted exactly when CuTe's walk is on every
 * coordinate (every sorted stride at least the extent below it), always
 * rejected when filter(a) is not injective; R strictly increasing in the
 * box, (filter(a), R) injective inside the box and onto it when every
 * stride is a multiple of the extent below it; the box is ceil(M / x) x
 * per coordinate, M the cotarget of the coordinate (basis_radix); for
 * integer strides the default is complement(a, cosize(a)) and a shape
 * cotarget is its size.
 */
static void law_complement(const axe_cute_layout *a, const request *q)
{
    bool basis = moves_basis(a);
    int64_t radix[NCODE + 1], total = 1, cos, size = 1;
    bool accept = true, onto = true;
    axe_cute_layout r, r2, f = filtered(a);
    axe_diag d;
    axe_status s = run_request(a, q, basis, &r, &d, radix);
    for (int k = 0; k <= NCODE; k++) {
        walk w = walk_modes(a, k == 0 ? 0 : codes[k - 1]);
        accept = accept && w.accept;
        onto = onto && w.divisible;
        total *= radix[k];
    }
    TL_CHECK((s == AXE_OK) == accept, "complement(%s, %lld): %s (%s)",
             tl_str(a), (long long)q->m, axe_status_name(s), d.message);
    TL_CHECK(s != AXE_OK || injective(&f),
             "complement(%s) accepted a non-injective layout", tl_str(a));
    if (s != AXE_OK) {
        TL_CHECK(d.message[0] != '\0', "complement(%s): no reason", tl_str(a));
        return;
    }
    TL_CHECK(basis || axe_cute_depth(&r) <= 1, "complement(%s) = %s deep",
             tl_str(a), tl_str(&r));
    if (total > (1 << 21))
        law_skips++;
    else
        TL_CHECK(pair_laws(&f, &r, radix, total, onto),
                 "complement(%s, %lld / rank %d) = %s breaks its laws",
                 tl_str(a), (long long)q->m, q->rank, tl_str(&r));
    if (basis || (q->m >= 0 && q->s == NULL))
        return;
    for (int i = 0; q->s != NULL && i < q->rank; i++)
        size *= q->s[i];
    if (q->s == NULL && axe_cute_cosize(a, &cos) != AXE_OK)
        return;
    TL_CHECK(axe_cute_complement(a, q->s ? size : cos, &r2, &d) == AXE_OK &&
                 axe_cute_equal(&r, &r2),
             "complement(%s) differs from the size / cosize form", tl_str(a));
}

/* The layout "r" on CuTe's extended domain up to "q" size(r): its last
 * leaf's extent times "q". */
static axe_cute_layout extend_last(const axe_cute_layout *r, int64_t q)
{
    axe_cute_layout e = *r;
    e.shape.v[e.shape.nleaf - 1] *= q;
    return e;
}

/*
 * complement_extended(a, M) for integer strides, against brute force: it
 * fails exactly when complement(a, M) does, with the same status; on
 * [0, size) it is the same function as complement(a, M); and on CuTe's
 * extended domain, for q = 1..3, (filter(a), R) is injective inside
 * [0, q B) (B = ceil(M / x) x from the walk), R strictly increasing, and
 * onto it when every stride is a multiple of the extent below it. The
 * coalesced complement has no such extension (1:0 for a compact a).
 */
static void law_complement_extended(const axe_cute_layout *a, int64_t m)
{
    axe_cute_layout r, c, f = filtered(a);
    axe_diag d, dc;
    walk w = walk_modes(a, 0);
    int64_t box, radix[NCODE + 1];
    axe_status s = axe_cute_complement_extended(a, m, &r, &d);
    axe_status sc = (axe_diag_clear(&dc), axe_cute_complement(a, m, &c, &dc));
    TL_CHECK(s == sc && (s == AXE_OK || d.message[0] != '\0'),
             "complement_extended(%s, %lld): %s, complement: %s", tl_str(a),
             (long long)m, axe_status_name(s), axe_status_name(sc));
    if (s != AXE_OK || sc != AXE_OK)
        return;
    TL_CHECK(size_of(&r) == size_of(&c),
             "complement_extended(%s) = %s: "
             "size differs from %s",
             tl_str(a), tl_str(&r), tl_str(&c));
    for (int64_t j = 0; j < size_of(&c); j++)
        TL_CHECK(iv(&r, j) == iv(&c, j),
                 "complement_extended(%s) = %s "
                 "differs from %s at %lld",
                 tl_str(a), tl_str(&r), tl_str(&c), (long long)j);
    box = ((m < 0 ? w.cosize : m) + w.x - 1) / w.x * w.x;
    for (int k = 0; k <= NCODE; k++)
        radix[k] = 1;
    for (int64_t q = 1; q <= 3 && box * 3 <= (1 << 20); q++) {
        axe_cute_layout e = extend_last(&r, q);
        radix[0] = q * box;
        TL_CHECK(pair_laws(&f, &e, radix, q * box, w.divisible),
                 "complement_extended(%s, %lld) = %s breaks its laws on "
                 "[0, %lld B)",
                 tl_str(a), (long long)m, tl_str(&r), (long long)q);
    }
}

static void test_complement_extended_laws(int cases)
{
    for (int i = 0; i < cases; i++) {
        int kind = (int)tl_range(CHAIN, SMALL);
        axe_cute_layout a = random_layout(4, 48, kind, false, tl_range(0, 1));
        walk w = walk_modes(&a, 0);
        int64_t m = tl_range(0, 1) ? -1 : tl_range(1, 2 * w.cosize + 8);
        law_complement_extended(&a, m);
    }
}

static void test_complement_laws(int cases)
{
    int64_t shape[3];
    for (int i = 0; i < cases; i++) {
        int kind = (int)tl_range(CHAIN, SMALL), form = (int)tl_range(0, 2);
        bool basis = i % 3 == 2;
        axe_cute_layout a = random_layout(basis ? 5 : 4, basis ? 64 : 48, kind,
                                          basis, tl_range(0, 1));
        walk w = walk_modes(&a, 0);
        request q = {-1, NULL, 0};
        if (form == 1)
            q.m = basis ? tl_range(1, 64) : tl_range(1, 2 * w.cosize + 8);
        if (form == 2) {
            q.rank = (int)tl_range(1, 3);
            for (int k = 0; k < q.rank; k++)
                shape[k] = tl_range(1, basis ? 8 : 16);
            q.s = shape;
        }
        law_complement(&a, &q);
    }
}

/* ---- inverse laws ------------------------------------------------------- */

/* The extent of R on each codomain slot: size(R) for integer strides, the
 * size of R's element at the path of codes[c] for scaled bases. */
static bool codomain_extents(const axe_cute_layout *a, const axe_cute_layout *r,
                             bool basis, int64_t *m)
{
    int64_t prod = 1;
    for (int k = 0; k <= NCODE; k++)
        m[k] = 1;
    if (!basis)
        m[0] = size_of(r);
    for (int c = 0; basis && c < NCODE; c++) {
        int path[2] = {AXE_CUTE_BASIS_MODE(codes[c], 0),
                       AXE_CUTE_BASIS_MODE(codes[c], 1)};
        axe_cute_layout e;
        if (!present(a, codes[c]))
            continue;
        if (axe_cute_get_path(r, path, AXE_CUTE_BASIS_DEPTH(codes[c]), &e) !=
            AXE_OK)
            return false;
        m[c + 1] = size_of(&e);
    }
    for (int k = 0; k <= NCODE; k++)
        prod *= m[k];
    return prod == size_of(r);
}

/* The codomain point of index "k": its colex digits in the extents "m". */
static vec decode(int64_t k, const int64_t *m)
{
    vec v;
    for (int s = 0; s <= NCODE; s++) {
        v.x[s] = k % m[s];
        k /= m[s];
    }
    return v;
}

/* "a" evaluated once for the inverse laws: its points and, for strides
 * >= 0, their encodings sorted and the number of distinct points. */
typedef struct image {
    int64_t n, distinct;
    vec *p;
    int64_t radix[NCODE + 1];
    int64_t *sorted;
    bool bad;
} image;

static void image_of(const axe_cute_layout *a, bool nonneg, image *im)
{
    im->bad = false;
    im->p = points(a, &im->n, &im->bad);
    im->sorted = NULL;
    im->distinct = 0;
    if (!nonneg)
        return;
    value_radix(a, im->radix);
    im->sorted = malloc((size_t)im->n * sizeof *im->sorted);
    if (im->sorted == NULL)
        exit(3);
    for (int64_t i = 0; i < im->n; i++) {
        im->sorted[i] = encode(&im->p[i], im->radix);
        im->bad = im->bad || im->sorted[i] < 0;
    }
    qsort(im->sorted, (size_t)im->n, sizeof *im->sorted, cmp_i64);
    for (int64_t i = 0; i < im->n; i++)
        im->distinct += i == 0 || im->sorted[i] != im->sorted[i - 1];
}

static void image_free(image *im)
{
    free(im->p);
    free(im->sorted);
}

/* Along each slot, the first t with t e_slot not in a's image: R's extent
 * there is at most t, and equal if a is injective (R is the largest right
 * inverse). */
static bool right_maximal(const image *im, const int64_t *m)
{
    bool ok = !im->bad, inj = im->distinct == im->n;
    for (int s = 0; s <= NCODE && ok; s++) {
        vec p;
        int64_t t = 0, e;
        memset(&p, 0, sizeof p);
        for (;; t++) {
            p.x[s] = t;
            e = encode(&p, im->radix);
            if (e < 0 || bsearch(&e, im->sorted, (size_t)im->n,
                                 sizeof *im->sorted, cmp_i64) == NULL)
                break;
        }
        ok = m[s] <= t && (!inj || m[s] == t || m[s] == 1);
    }
    return ok;
}

/* right_inverse(a) = R: a(R(k)) is the codomain point of k for every
 * k < size(R), and R is maximal (right_maximal) for strides >= 0. */
static void law_right(const axe_cute_layout *a, bool basis, const image *im)
{
    axe_cute_layout r;
    axe_diag d;
    int64_t m[NCODE + 1], n;
    bool bad = false, ok;
    axe_status s = axe_cute_right_inverse(a, &r, &d);
    TL_CHECK(s == AXE_OK, "right_inverse(%s): %s (%s)", tl_str(a),
             axe_status_name(s), d.message);
    if (s != AXE_OK)
        return;
    ok = codomain_extents(a, &r, basis, m);
    n = size_of(&r);
    for (int64_t k = 0; k < n && ok; k++) {
        vec want = decode(k, m), got = ev(a, iv(&r, k), &bad);
        ok = !bad && vec_equal(&want, &got);
    }
    TL_CHECK(ok, "right_inverse(%s) = %s: a(R(k)) != k", tl_str(a), tl_str(&r));
    TL_CHECK(!ok || im->sorted == NULL || right_maximal(im, m),
             "right_inverse(%s) = %s is not maximal", tl_str(a), tl_str(&r));
}

/* ---- the right inverse's existence oracle ------------------------------- */

/* Strides r[k..] for the extents ext[k..] (product so far "p", values
 * R(y) = rv[y] for y < p) with a(R(x)) = x: every stride in [0, n). */
static bool oracle_strides(const int64_t *val, int64_t n, const int64_t *ext,
                           int k, int nk, int64_t p, int64_t *rv)
{
    if (k == nk)
        return true;
    for (int64_t r = 0; r < n; r++) {
        bool ok = true;
        for (int64_t c = 1; c < ext[k] && ok; c++)
            for (int64_t y = 0; y < p && ok; y++) {
                int64_t i = rv[y] + c * r;
                ok = i < n && val[i] == y + c * p;
                if (ok)
                    rv[y + c * p] = i;
            }
        if (ok && oracle_strides(val, n, ext, k + 1, nk, p * ext[k], rv))
            return true;
    }
    return false;
}

/* Some ordered factorization ext[0..k) .. of "left" (extents >= 2) with
 * strides that make a right inverse. */
static bool oracle_shapes(const int64_t *val, int64_t n, int64_t *ext, int k,
                          int64_t left, int64_t *rv)
{
    if (left == 1) {
        rv[0] = 0;
        return oracle_strides(val, n, ext, 0, k, 1, rv);
    }
    for (int64_t e = 2; e <= left && k < 8; e++) {
        ext[k] = e;
        if (left % e == 0 && oracle_shapes(val, n, ext, k + 1, left / e, rv))
            return true;
    }
    return false;
}

/* The size of the largest layout R with a(R(x)) = x, by trying every
 * shape and stride (integer strides >= 0, size(a) <= 24). */
static int64_t oracle_right(const axe_cute_layout *a)
{
    int64_t val[24], rv[24], ext[8], n = size_of(a), best = 1;
    for (int64_t i = 0; i < n; i++)
        val[i] = iv(a, i);
    for (int64_t size = 2; size <= n; size++)
        if (oracle_shapes(val, n, ext, 0, size, rv))
            best = size;
    return best;
}

/* right_inverse(a) of small layouts with integer strides >= 0 (mostly
 * not injective): a right inverse as large as the oracle's. */
static void test_right_oracle(int cases)
{
    int larger = 0;
    for (int i = 0; i < cases; i++) {
        axe_cute_layout a = random_layout(3, 24, SMALL, false, true), r;
        axe_diag d;
        int64_t want;
        axe_status s;
        if (size_of(&a) > 24)
            continue;
        want = oracle_right(&a);
        s = axe_cute_right_inverse(&a, &r, &d);
        TL_CHECK(s == AXE_OK && is_right_inverse(&a, &r) && size_of(&r) == want,
                 "right_inverse(%s) = %s, the oracle's largest has size %lld",
                 tl_str(&a), s == AXE_OK ? tl_str(&r) : d.message,
                 (long long)want);
        larger += want > 1;
    }
    printf("right inverse oracle: %d cases, %d with an inverse of size > 1\n",
           cases, larger);
}

/* The oracle of left_inverse on strides >= 0: on each coordinate the
 * sorted strides of coalesce(a) divide each other. */
static bool dividing_chain(const axe_cute_layout *a)
{
    int64_t s[AXE_CUTE_MAX_LEAVES], d[AXE_CUTE_MAX_LEAVES];
    for (int k = 0; k <= NCODE; k++) {
        int n = sorted_modes_of(a, k == 0 ? 0 : codes[k - 1], true, s, d);
        for (int i = 0; i + 1 < n; i++)
            if (d[i + 1] % d[i] != 0)
                return false;
    }
    return true;
}

/* A leaf of extent > 1 with a negative (sign < 0) or zero stride. */
static bool has_stride(const axe_cute_layout *a, int sign)
{
    for (int j = 0; j < a->shape.nleaf; j++)
        if (a->shape.v[j] > 1 &&
            (sign < 0 ? a->stride[j] < 0 : a->stride[j] == 0))
            return true;
    return false;
}

/* R(a(k)) is an index with a's point: a(R(a(k))) == a(k), and == k when
 * a has no stride-0 mode. */
static bool left_equation(const axe_cute_layout *a, const axe_cute_layout *r,
                          const int64_t *m, const image *im)
{
    bool bad = im->bad, zero = has_stride(a, 0);
    for (int64_t k = 0; k < im->n && !bad; k++) {
        int64_t x = iv(r, encode(&im->p[k], m));
        vec q = ev(a, x, &bad);
        bad = bad || !vec_equal(&im->p[k], &q) || (!zero && x != k);
    }
    return !bad;
}

/*
 * left_inverse(a): negative strides give AXE_ERR_DOMAIN; otherwise it is
 * accepted only when filter(a) is injective, and always when also the
 * sorted strides of coalesce(a) divide each other on each coordinate;
 * NOT_INJECTIVE only for non-injective a, DIVISIBILITY (no left inverse
 * exists: test_left_oracle) only for an injective a with a non-dividing
 * chain; R satisfies the equation.
 */
static void law_left(const axe_cute_layout *a, bool basis, const image *im)
{
    axe_cute_layout r, f = filtered(a);
    axe_diag d;
    int64_t m[NCODE + 1];
    axe_status s = axe_cute_left_inverse(a, &r, &d);
    bool inj, chain;
    if (has_stride(a, -1)) {
        TL_CHECK(s == AXE_ERR_DOMAIN, "left_inverse(%s): %s", tl_str(a),
                 axe_status_name(s));
        return;
    }
    inj = !im->bad && im->distinct == size_of(&f);
    chain = dividing_chain(a);
    TL_CHECK((s != AXE_OK || inj) && (!(inj && chain) || s == AXE_OK) &&
                 (s != AXE_ERR_NOT_INJECTIVE || !inj) &&
                 (s != AXE_ERR_DIVISIBILITY || (inj && !chain)),
             "left_inverse(%s): %s (%s)", tl_str(a), axe_status_name(s),
             d.message);
    if (s != AXE_OK) {
        TL_CHECK(d.message[0] != '\0', "left_inverse(%s): no reason",
                 tl_str(a));
        return;
    }
    TL_CHECK(codomain_extents(a, &r, basis, m) && left_equation(a, &r, m, im),
             "left_inverse(%s) = %s: a(R(a(k))) != a(k)", tl_str(a),
             tl_str(&r));
}

/* ---- the left inverse's existence oracle -------------------------------- */

/* The points a(k) (k < n, strides > 0, so a is filter(a)) as x[k]. */
typedef struct left_case {
    int64_t n, m, x[16]; /* size(a), max a(k) + 1, a(k) */
} left_case;

/* R(y) on the extents ext[0..k) (the last unbounded) and strides r. */
static int64_t r_at(const int64_t *ext, const int64_t *r, int k, int64_t y)
{
    int64_t v = 0;
    for (int j = 0; j + 1 < k; j++) {
        v += (y % ext[j]) * r[j];
        y /= ext[j];
    }
    return v + y * r[k - 1];
}

/* Strides r[j..] in [-m, m] for the extents ext[0..nk) (product so far
 * "p") with R(a(k)) = k at every point below p * ext[j] (every point at
 * the last mode). */
static bool left_strides(const left_case *c, const int64_t *ext, int64_t *r,
                         int j, int nk, int64_t p)
{
    int64_t hi = j + 1 == nk ? c->m : p * ext[j];
    if (j == nk)
        return true;
    for (r[j] = -c->m; r[j] <= c->m; r[j]++) {
        bool ok = true;
        for (int64_t k = 0; k < c->n && ok; k++)
            ok = c->x[k] < p || c->x[k] >= hi ||
                 r_at(ext, r, j + 1, c->x[k]) == k;
        if (ok && left_strides(c, ext, r, j + 1, nk, p * ext[j]))
            return true;
    }
    return false;
}

/* Some ordered factorization ext[k..] of "left" (extents >= 2) with
 * strides that make a left inverse. */
static bool left_shapes(const left_case *c, int64_t *ext, int k, int64_t left)
{
    int64_t r[8];
    if (left == 1)
        return k > 0 && left_strides(c, ext, r, 0, k, 1);
    for (int64_t e = 2; e <= left && k < 8; e++) {
        ext[k] = e;
        if (left % e == 0 && left_shapes(c, ext, k + 1, left / e))
            return true;
    }
    return false;
}

/* The least size of a layout R with R(a(k)) = k for k < size(a), trying
 * every shape of size in [m, 2m] and every stride in [-m, m]; 0 if none. */
static int64_t oracle_left(const left_case *c)
{
    int64_t ext[8];
    for (int64_t size = c->m; size <= 2 * c->m; size++)
        if (left_shapes(c, ext, 0, size))
            return size;
    return 0;
}

/* R(a(k)) == k for every k, evaluated by the library. */
static bool is_exact_left(const left_case *c, const axe_cute_layout *r)
{
    for (int64_t k = 0; k < c->n; k++)
        if (c->x[k] >= size_of(r) || iv(r, c->x[k]) != k)
            return false;
    return true;
}

/* One layout with strides in [1, 8], size <= 16 and values below 32:
 * left_inverse succeeds exactly when the oracle finds a left inverse,
 * with its least size when the chain does not divide (or a smaller one
 * with a stride outside the oracle's range); 1 if found, -1 if skipped
 * (values too large for the oracle). */
static int left_oracle_case(const axe_cute_layout *a)
{
    left_case c;
    axe_cute_layout r;
    axe_diag d;
    axe_status s = axe_cute_left_inverse(a, &r, &d);
    int64_t want;
    c.n = size_of(a);
    c.m = 1;
    for (int64_t k = 0; k < c.n; k++) {
        c.x[k] = iv(a, k);
        c.m = c.x[k] >= c.m ? c.x[k] + 1 : c.m;
        for (int64_t j = 0; j < k; j++)
            if (c.x[j] == c.x[k]) {
                TL_CHECK(s == AXE_ERR_NOT_INJECTIVE, "left_inverse(%s): %s",
                         tl_str(a), axe_status_name(s));
                return 0;
            }
    }
    if (c.m > 32)
        return -1;
    want = oracle_left(&c);
    TL_CHECK(want == 0 ? s == AXE_ERR_DIVISIBILITY
                       : s == AXE_OK && is_exact_left(&c, &r) &&
                             (dividing_chain(a) || size_of(&r) <= want),
             "left_inverse(%s) = %s, the oracle's least has size %lld",
             tl_str(a), s == AXE_OK ? tl_str(&r) : d.message, (long long)want);
    if (s == AXE_OK && size_of(&r) < want && !dividing_chain(a))
        for (int j = 0; j < r.shape.nleaf; j++)
            TL_CHECK(r.shape.v[j] == 1 || r.stride[j] < -c.m ||
                         r.stride[j] > c.m,
                     "left_inverse(%s) = %s is smaller than the oracle's %lld",
                     tl_str(a), tl_str(&r), (long long)want);
    return want > 0;
}

/* left_inverse(a) of small injective and non-injective layouts with
 * strides > 0, three in four with a non-dividing chain. */
static void test_left_oracle(int cases)
{
    int found = 0, searched = 0, done = 0;
    while (done < cases) {
        axe_cute_layout a = tl_random_layout(3, 3, 16, 1, 0);
        int r;
        for (int j = 0; j < a.shape.nleaf; j++) {
            a.stride[j] = tl_range(1, 8);
            a.basis[j] = 0;
        }
        if (size_of(&a) > 16 || (dividing_chain(&a) && done % 4 != 0) ||
            (r = left_oracle_case(&a)) < 0)
            continue;
        done++;
        found += r;
        searched += !dividing_chain(&a);
    }
    printf("left inverse oracle: %d cases, %d with a non-dividing chain, %d "
           "with a left inverse\n",
           cases, searched, found);
}

/* Strides of both signs on one coordinate. */
static bool mixed_signs(const axe_cute_layout *a)
{
    for (int j = 0; j < a->shape.nleaf; j++)
        for (int i = 0; i < a->shape.nleaf; i++)
            if (a->shape.v[i] > 1 && a->shape.v[j] > 1 &&
                a->basis[i] == a->basis[j] && a->stride[i] < 0 &&
                a->stride[j] > 0)
                return true;
    return false;
}

/* nullspace(a) = K: K's image is exactly {k < size(a) : a(k) == 0}, one
 * index each; rejected only for strides of both signs. */
static void law_nullspace(const axe_cute_layout *a)
{
    axe_cute_layout r;
    axe_diag d;
    axe_status s = axe_cute_nullspace(a, &r, &d);
    int64_t n = size_of(a), nz = 0, nk, *z, *kv;
    bool bad = false, ok;
    TL_CHECK(s == AXE_OK || (s == AXE_ERR_UNSUPPORTED && mixed_signs(a) &&
                             d.message[0] != '\0'),
             "nullspace(%s): %s (%s)", tl_str(a), axe_status_name(s),
             d.message);
    if (s != AXE_OK)
        return;
    nk = size_of(&r);
    z = malloc((size_t)n * sizeof *z);
    kv = malloc((size_t)(nk > 0 ? nk : 1) * sizeof *kv);
    if (z == NULL || kv == NULL)
        exit(3);
    for (int64_t k = 0; k < n; k++) {
        vec p = ev(a, k, &bad), zero;
        memset(&zero, 0, sizeof zero);
        if (vec_equal(&p, &zero))
            z[nz++] = k;
    }
    for (int64_t j = 0; j < nk; j++)
        kv[j] = iv(&r, j);
    qsort(kv, (size_t)nk, sizeof *kv, cmp_i64);
    ok = !bad && nk == nz && memcmp(z, kv, (size_t)nz * sizeof *z) == 0;
    TL_CHECK(ok, "nullspace(%s) = %s is not the zero set", tl_str(a),
             tl_str(&r));
    free(z);
    free(kv);
}

static void test_inverse_laws(int cases)
{
    for (int i = 0; i < cases; i++) {
        bool basis = i % 4 == 3;
        int kind = (int)tl_range(CHAIN, basis ? SMALL : SIGNED);
        int64_t maxsize = i % 32 == 0 ? 4096 : kind <= GAPPED ? 256 : 64;
        axe_cute_layout a =
            random_layout(5, maxsize, kind, basis, tl_range(0, 3) == 0);
        image im;
        image_of(&a, !has_stride(&a, -1), &im);
        law_right(&a, moves_basis(&a), &im);
        law_left(&a, moves_basis(&a), &im);
        image_free(&im);
    }
}

static void test_nullspace_laws(int cases)
{
    for (int i = 0; i < cases; i++) {
        bool basis = i % 4 == 3;
        int kind = tl_range(0, 2) == 0 ? SMALL : SIGNED;
        axe_cute_layout a = random_layout(5, 512, kind, basis, true);
        law_nullspace(&a);
    }
}

int main(void)
{
    tl_seed("test_cute_inverse", 20250611);
    test_complement_vectors();
    test_inverse_vectors("right_inverse", right_inverse_rows,
                         sizeof right_inverse_rows / sizeof(inverse_row));
    test_inverse_vectors("left_inverse", left_inverse_rows,
                         sizeof left_inverse_rows / sizeof(inverse_row));
    test_inverse_vectors("nullspace", nullspace_rows,
                         sizeof nullspace_rows / sizeof(inverse_row));
    test_reject_rows();
    test_exact_rows();
    test_capacity();
    test_complement_laws(20000);
    test_complement_extended_laws(6000);
    test_inverse_laws(14000);
    test_right_oracle(3000);
    test_left_oracle(600);
    test_nullspace_laws(6000);
    printf("complement laws: %d cases with a box over 2^21 points not "
           "enumerated\n",
           law_skips);
    return tl_finish();
}
