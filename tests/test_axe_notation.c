/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Axe layout notation: canonical strings print back unchanged, accepted
 * variants print in canonical form, malformed strings fail with the right
 * status at the right byte offset, printing truncates like snprintf, and on
 * seeded random layouts print then parse gives back an equal layout whose
 * print is the same text.
 */
#include "testlib.h"

static const char *const canonical[] = {
    "S[8:4@laneid]",
    "S[():()]",
    "S[1:1]",
    "S[(2,3,4):(12,4,1)]",
    "S[8:4@laneid] + R[4:1@laneid]",
    "S[8:4@laneid] + 1@laneid",
    "S[8:4@laneid] + 1@laneid + 2@warpid + 64",
    "S[8:4@laneid] + R[4:1@laneid] + 1@laneid + 2@warpid",
    "S[8:4@laneid] + 64 + 1@laneid",
    "S[1:1] + R[(8,4):(4@laneid,1@laneid)] + 2@warpid",
    "S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:4@warpid] + 5@warpid",
    "S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp] + 5@warp",
    "S[(2,32,2,64):(1@gpuid,128,2@gpuid,1)]",
    "S[(2,128,112):(112@TCol,1@TLane,1@TCol)]",
    "S[4:-1]",
    "S[(2,4):(0,-4)] + -3@warpid",
    "S[8:1] + 0",
    "S[8:1] + -3",
    "S[4:3@0] + R[2:1@1]",
    "S[(4,4):(1@Col_2,4@x9)]",
    "Swizzle<3,3,3>(S[(8,64):(64,1)])",
    "Swizzle<3,3,3,outer>(S[(8,8):(64,1)] + 8)",
    "Swizzle<0,0,0>(S[():()])",
    "Swizzle<3,3,3>(S[(8,8):(64,1)] + -3)",
    "S[9223372036854775807:-9223372036854775808]",
};

static void test_round_trip(void)
{
    for (size_t i = 0; i < sizeof canonical / sizeof canonical[0]; i++) {
        const char *s = canonical[i];
        axe_layout l;
        axe_diag d = {0};
        char buf[512];
        axe_status st = axe_parse_layout(s, strlen(s), &l, &d);
        size_t n = st == AXE_OK ? axe_print_layout(&l, buf, sizeof buf) : 0;
        TL_CHECK(st == AXE_OK && n == strlen(s) && strcmp(buf, s) == 0,
                 "round trip %s: st %d (%s) -> %s", s, st, d.message,
                 st == AXE_OK ? buf : "-");
    }
}

static void test_variants(void)
{
    static const char *const rows[][2] = {
        {"S[(8):(4@laneid)]", "S[8:4@laneid]"},
        {"S[2, 3, 4]", "S[(2,3,4):(12,4,1)]"},
        {"S[(2,3,4)]", "S[(2,3,4):(12,4,1)]"},
        {"S[8]", "S[8:1]"},
        {"  S [8:1]", "S[8:1]"},
        {"S[8:1@m]", "S[8:1]"},
        {"S[ ( 8 , 2 ) : ( 4 @laneid , 1 ) ]", "S[(8,2):(4@laneid,1)]"},
        {"S[8:1]+R[2:3]+4", "S[8:1] + R[2:3] + 4"},
        {"64 + S[8:4@laneid] + 1@laneid", "S[8:4@laneid] + 64 + 1@laneid"},
        {"S[8:1] + 2@warpid + 3@warpid", "S[8:1] + 5@warpid"},
        {"S[8:1] - 3@warpid", "S[8:1] + -3@warpid"},
        {"S[8:1] - -3", "S[8:1] + 3"},
        {"-3 + S[8:1]", "S[8:1] + -3"},
        {"S[8:1] + R[():()]", "S[8:1]"},
        {"S[8:1] + R[2, 2]", "S[8:1] + R[(2,2):(2,1)]"},
        {"Swizzle<3,3,3,inner>(S[512:1])", "Swizzle<3,3,3>(S[512:1])"},
        {"Swizzle < 3 , 3 , 3 , outer > ( S[512:1] )",
         "Swizzle<3,3,3,outer>(S[512:1])"},
        {"\tS[8:1]\n", "S[8:1]"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        axe_layout l;
        axe_diag d = {0};
        char buf[512];
        axe_status st =
            axe_parse_layout(rows[i][0], strlen(rows[i][0]), &l, &d);
        if (st == AXE_OK)
            axe_print_layout(&l, buf, sizeof buf);
        TL_CHECK(st == AXE_OK && strcmp(buf, rows[i][1]) == 0,
                 "variant \"%s\": st %d (%s) -> %s, want %s", rows[i][0], st,
                 d.message, st == AXE_OK ? buf : "-", rows[i][1]);
    }
}

static void test_reject(void)
{
    static const struct {
        const char *s;
        axe_status st;
        long offset;
    } rows[] = {
        {"", AXE_ERR_SYNTAX, 0},
        {"S", AXE_ERR_SYNTAX, 1},
        {"S[", AXE_ERR_SYNTAX, 2},
        {"S[8:1", AXE_ERR_SYNTAX, 5},
        {"S[0:1]", AXE_ERR_SYNTAX, 2},
        {"S[-2:1]", AXE_ERR_SYNTAX, 2},
        {"S[(8,2):(1)]", AXE_ERR_SYNTAX, 10},
        {"S[(8):(1,2)]", AXE_ERR_SYNTAX, 8},
        {"S[():(1)]", AXE_ERR_SYNTAX, 6},
        {"S[()]", AXE_ERR_SYNTAX, 4},
        {"S[8:1@]", AXE_ERR_SYNTAX, 6},
        {"S[8:1@abcdefghijklmnop]", AXE_ERR_SYNTAX, 6},
        {"S[8:1@a-b]", AXE_ERR_SYNTAX, 7},
        {"S[8:1] + S[2:1]", AXE_ERR_SYNTAX, 9},
        {"S[8:1] + R[2:1] + R[2:1]", AXE_ERR_SYNTAX, 18},
        {"R[2:1] + 4", AXE_ERR_SYNTAX, 0},
        {"5@warpid", AXE_ERR_SYNTAX, 0},
        {"S[8:1] +", AXE_ERR_SYNTAX, 8},
        {"S[8:1] + x", AXE_ERR_SYNTAX, 9},
        {"S[8:1] - R[2:1]", AXE_ERR_SYNTAX, 9},
        {"S[8:1] 4", AXE_ERR_SYNTAX, 7},
        {"S[99999999999999999999:1]", AXE_ERR_OVERFLOW, 2},
        {"S[8:1] + 9223372036854775807 + 1", AXE_ERR_OVERFLOW, 31},
        {"S[8:1] - -9223372036854775808", AXE_ERR_OVERFLOW, 9},
        {"S[(4294967296,4294967296,2)]", AXE_ERR_OVERFLOW, 2},
        {"Swizzle<3,3,3>(S[8:1]", AXE_ERR_SYNTAX, 21},
        {"Swizzle<3,3>(S[8:1])", AXE_ERR_SYNTAX, 11},
        {"Swizzle<3,3,3,middle>(S[8:1])", AXE_ERR_SYNTAX, 14},
        {"Swizzle<3,4,3>(S[8:1])", AXE_ERR_INVALID, 7},
        {"Swizzle<-1,3,3>(S[8:1])", AXE_ERR_INVALID, 8},
        {"Swizzle<3,3,3>(Swizzle<3,3,3>(S[8:1]))", AXE_ERR_SYNTAX, 15},
        {"S[8:1] + 1@a + 1@b + 1@c + 1@d + 1@e + 1@f + 1@g + 1@h + 1@i",
         AXE_ERR_CAPACITY, 57},
        {"S[8:1] + R[(1,1,1,1,1,1,1,1,1):(1,1,1,1,1,1,1,1,1)]",
         AXE_ERR_CAPACITY, 9},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        axe_layout l, before;
        axe_diag d = {0};
        axe_status st;
        memset(&l, 0x5a, sizeof l);
        before = l;
        st = axe_parse_layout(rows[i].s, strlen(rows[i].s), &l, &d);
        TL_CHECK(st == rows[i].st && d.offset == rows[i].offset &&
                     d.message[0] != '\0' && memcmp(&l, &before, sizeof l) == 0,
                 "reject \"%s\": st %d at %ld (%s), want %d at %ld", rows[i].s,
                 st, d.offset, d.message, rows[i].st, rows[i].offset);
    }
}

/* Only the first "len" bytes count. */
static void test_length(void)
{
    axe_layout l;
    char buf[64];
    TL_CHECK(axe_parse_layout("S[8:1] + 3 trailing", 10, &l, NULL) == AXE_OK &&
                 axe_print_layout(&l, buf, sizeof buf) == 10 &&
                 strcmp(buf, "S[8:1] + 3") == 0,
             "length bounds the text");
    TL_CHECK(axe_parse_layout(NULL, 0, &l, NULL) == AXE_ERR_INVALID,
             "NULL text");
}

static void test_truncation(void)
{
    axe_layout l;
    const char *s = "S[(8,2):(4@laneid,1)] + R[2:4@warpid] + 5@warpid";
    size_t n = strlen(s);
    if (axe_parse_layout(s, n, &l, NULL) != AXE_OK)
        exit(2);
    for (size_t cap = 0; cap <= n + 1; cap++) {
        char buf[128];
        memset(buf, '#', sizeof buf);
        TL_CHECK(axe_print_layout(&l, buf, cap) == n &&
                     (cap == 0 || (memcmp(buf, s, cap - 1) == 0 &&
                                   buf[cap - 1 < n ? cap - 1 : n] == '\0')) &&
                     buf[cap] == '#',
                 "truncated print at cap %zu", cap);
    }
}

static void test_print_point(void)
{
    axe_point p = {0};
    char buf[64];
    TL_CHECK(axe_print_point(&p, buf, sizeof buf) == 2 &&
                 strcmp(buf, "{}") == 0,
             "empty point");
    if (axe_point_add(&p, "laneid", 8) != AXE_OK ||
        axe_point_add(&p, "m", 0) != AXE_OK ||
        axe_point_add(&p, "warpid", -2) != AXE_OK)
        exit(2);
    axe_print_point(&p, buf, sizeof buf);
    TL_CHECK(strcmp(buf, "{laneid: 8, m: 0, warpid: -2}") == 0, "point %s",
             buf);
}

static const char *const names[] = {"m",   "laneid", "warpid", "F",
                                    "abc", "x_1",    "0",      "TCol"};

static void random_iters(axe_iter *it, uint8_t *n, int max)
{
    *n = (uint8_t)tl_range(0, max);
    for (int k = 0; k < *n; k++) {
        const char *a = names[tl_range(0, 7)];
        it[k].extent = tl_range(0, 9) == 0 ? INT64_MAX : tl_range(1, 64);
        it[k].stride = tl_range(0, 9) == 0 ? INT64_MIN : tl_range(-99, 99);
        memset(it[k].axis, 0, sizeof it[k].axis);
        memcpy(it[k].axis, a, strlen(a));
    }
}

static axe_layout random_layout(void)
{
    axe_layout l;
    int no = (int)tl_range(0, AXE_LAYOUT_MAX_OFFSET);
    axe_layout_init(&l);
    random_iters(l.shard, &l.nshard, 10);
    random_iters(l.replica, &l.nreplica, tl_range(0, 2) ? 0 : 8);
    for (int i = 0; i < no; i++)
        if (axe_layout_add_offset(&l, names[tl_range(0, 7)],
                                  tl_range(-1000, 1000)) != AXE_OK)
            exit(2);
    if (tl_range(0, 3) == 0) {
        l.swizzle.present = true;
        l.swizzle.inner = tl_range(0, 1) != 0;
        l.swizzle.per_element = (int32_t)tl_range(0, 6);
        l.swizzle.len = (int32_t)tl_range(0, 4);
        l.swizzle.atom = (int32_t)tl_range(l.swizzle.len, 8);
    }
    return l;
}

/* parse(print(l)) == l and print(parse(print(l))) == print(l). */
static void law_print_parse(void)
{
    for (int t = 0; t < 20000; t++) {
        axe_layout l = random_layout(), back;
        char a[2048], b[2048];
        axe_diag d = {0};
        size_t n = axe_print_layout(&l, a, sizeof a);
        axe_status st = axe_parse_layout(a, n, &back, &d);
        TL_CHECK(
            st == AXE_OK && axe_layout_equal(&l, &back) &&
                axe_print_layout(&back, b, sizeof b) == n && strcmp(a, b) == 0,
            "print/parse %s: st %d (%s at %ld)", a, st, d.message, d.offset);
    }
}

int main(void)
{
    tl_seed("test_axe_notation", 42);
    test_round_trip();
    test_variants();
    test_reject();
    test_length();
    test_truncation();
    test_print_point();
    law_print_parse();
    return tl_finish();
}
