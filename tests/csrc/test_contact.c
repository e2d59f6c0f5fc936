/*
 * test_contact.c - the contact score (contact.c): edges that run against
 * each other, within the tolerance, and along the container's walls.
 */
#include "tu.h"

/* Two 1000-unit squares, b moved by (dx, dy): how long their sides touch. */
static double squares(int64_t dx, int64_t dy, double tol)
{
    un_rings a, b;
    double c;
    un_rings_init(&a);
    un_rings_init(&b);
    tu_box(&a, 0, 0, 1000, 1000);
    tu_box(&b, 0, 0, 1000, 1000);
    c = un_contact_rings(&a, tu_pt(0, 0), &b, tu_pt(dx, dy), tol);
    un_rings_free(&a);
    un_rings_free(&b);
    return c;
}

static void test_side_by_side(void)
{
    CHECK_NEAR(squares(1000, 0, 3), 1000, 1e-9);      /* one whole side */
    CHECK_NEAR(squares(0, -1000, 3), 1000, 1e-9);     /* below */
    CHECK_NEAR(squares(1000, 400, 3), 600, 1e-9);     /* shifted: the overlap */
    CHECK_NEAR(squares(1000, 1000, 3), 0, 1e-9);      /* corner to corner */
    CHECK_NEAR(squares(1002, 0, 3), 1000, 1e-9);      /* a rounding apart */
    CHECK_NEAR(squares(1004, 0, 3), 0, 1e-9);         /* a gap */
    CHECK_NEAR(squares(0, 0, 3), 0, 1e-9);            /* the same place: sides run the same way */
    CHECK_NEAR(squares(1000, 0, 3), squares(-1000, 0, 3), 1e-9);
}

static void test_slanted_and_holes(void)
{
    /* a right triangle against its mirror across the hypotenuse: the
     * hypotenuse touches along its whole length */
    static const int64_t t1[] = {0, 0, 1000, 0, 0, 1000};
    static const int64_t t2[] = {1000, 0, 1000, 1000, 0, 1000};
    /* a frame with a square hole, and a square that fills the hole */
    un_rings a, b, frame, plug;
    un_rings_init(&a); un_rings_init(&b); un_rings_init(&frame); un_rings_init(&plug);
    tu_add(&a, t1, 3);
    tu_add(&b, t2, 3);
    CHECK_NEAR(un_contact_rings(&a, tu_pt(0, 0), &b, tu_pt(0, 0), 3), 1000 * sqrt(2.0), 1e-6);
    CHECK_NEAR(un_contact_rings(&a, tu_pt(0, 0), &b, tu_pt(0, 10), 3), 0, 1e-9);
    tu_box(&frame, 0, 0, 3000, 3000);
    {
        static const int64_t hole[] = {1000, 1000, 1000, 2000, 2000, 2000, 2000, 1000}; /* clockwise */
        tu_add(&frame, hole, 4);
    }
    tu_box(&plug, 0, 0, 1000, 1000);
    CHECK_NEAR(un_contact_rings(&plug, tu_pt(1000, 1000), &frame, tu_pt(0, 0), 3), 4000, 1e-9);
    CHECK_NEAR(un_contact_rings(&frame, tu_pt(0, 0), &plug, tu_pt(1000, 1000), 3), 4000, 1e-9);
    /* half way out of the hole: half of each side wall */
    CHECK_NEAR(un_contact_rings(&plug, tu_pt(1000, 1500), &frame, tu_pt(0, 0), 3), 1000, 1e-9);
    un_rings_free(&a); un_rings_free(&b); un_rings_free(&frame); un_rings_free(&plug);
}

static void test_walls(void)
{
    un_rings a;
    un_pt lo = tu_pt(0, 0), hi = tu_pt(5000, 4000);
    un_rings_init(&a);
    tu_box(&a, 0, 0, 1000, 1000);
    CHECK_NEAR(un_contact_walls(&a, tu_pt(0, 0), lo, hi, 3), 2000, 1e-9);       /* bottom-left corner */
    CHECK_NEAR(un_contact_walls(&a, tu_pt(2000, 1500), lo, hi, 3), 0, 1e-9);    /* inside */
    CHECK_NEAR(un_contact_walls(&a, tu_pt(4000, 1500), lo, hi, 3), 1000, 1e-9); /* right wall */
    CHECK_NEAR(un_contact_walls(&a, tu_pt(4000, 3000), lo, hi, 3), 2000, 1e-9); /* top-right corner */
    CHECK_NEAR(un_contact_walls(&a, tu_pt(-2, 1500), lo, hi, 3), 1000, 1e-9);   /* a rounding beyond */
    CHECK_NEAR(un_contact_walls(&a, tu_pt(10, 1500), lo, hi, 3), 0, 1e-9);      /* off the wall */
    un_rings_free(&a);
}

int main(void)
{
    RUN(test_side_by_side);
    RUN(test_slanted_and_holes);
    RUN(test_walls);
    return tu_report("test_contact");
}
