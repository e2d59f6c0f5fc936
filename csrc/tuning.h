/*
 * tuning.h - every knob of the search, in one place, each with its reason.
 *
 * A knob is a number that trades the layouts' quality against time or
 * memory and could be set otherwise without breaking any rule: the values
 * below were chosen by the measurements their comments cite.  Changing one
 * changes the layouts (tests/test_layout_hashes.py then fails: regenerate
 * the hashes in the same commit).
 *
 * Not here: numbers that keep layouts valid or the arithmetic in range
 * (the slack and the grid in engine.h, the clearances of obstacle_cores.c
 * and cfr.c, UN_COORD_LIMIT), and the cut-overs of geometric algorithms that change
 * only their speed, never their result (arrange.c's SMALL_INPUT,
 * ringtree.c's SCAN_MAX, cfr.c's CULL_MIN_POINTS): those stay beside the
 * code whose invariant they are.
 *
 * A few knobs can be set on the compiler's command line (-DT0_SHARE=0.2)
 * for tuning runs; the build never does.
 */
#ifndef UVNEST_TUNING_H
#define UVNEST_TUNING_H

/* ------------------------------------------------ orientations (orient.c) */

/* Orientation candidates with free rotation: the quarter turns of this
 * many edge directions per island.  Puzzle pieces have 3 to 7 edges, so 6
 * directions cover nearly all of theirs; each direction costs 4
 * orientations of theta's range and of the contact search's tries. */
#define UN_CAND_DIRS 6
#define UN_CANDIDATES (4 * UN_CAND_DIRS)
/* Edges within this angle (modulo a quarter turn) count as one direction:
 * the simplification moves vertices by a quarter of the margin, which
 * turns short edges by up to a few tenths of a degree. */
#define SAME_DIRECTION 0.0087   /* half a degree, radians */

/* ------------------------------------------- inflation and shrinking (decode.c) */

/* Binary search depth for islands that do not fit at full size: they are
 * tried shrunk, on 2^depth levels, so the cost rewards coming closer. */
#define UN_SHRINK_DEPTH 3
#define UN_SHRINK_LEVELS (1 << UN_SHRINK_DEPTH)
/* L may shrink by this share below the inflation's L before islands are
 * inflated again (unless the engine's drift says otherwise); the inflation
 * is then a little wider than needed. */
#define UN_INFLATION_DRIFT 0.03

/* ------------------------------------------- island preparation (prepare.c) */

/* Islands annealed unless the caller says otherwise; the rest are filled
 * around them. */
#define DEFAULT_ANNEAL_MAX 24
/* Of many islands, at least this many are annealed, then more until they
 * hold this share of the area. */
#define ANNEAL_MIN 3
#define ANNEAL_AREA_SHARE 0.85
/* Vertices shared by the annealed islands' simplified shapes (each gets
 * VERTS_BUDGET / annealed, within the bounds below): no-fit polygons cost
 * about the product of two shapes' vertices. */
#define VERTS_BUDGET 4000
#define VERTS_ANNEALED_MIN 48
#define VERTS_ANNEALED_MAX 256
#define VERTS_FILLED 24
/* Annealed islands of more vertices meet the fillers as a coarser view of
 * this many (a no-fit polygon of a filler around an annealed island costs
 * about the product of their vertices, and fillers make most of them; on a
 * dense mesh, 256-vertex islands, most of the first layout's time). */
#define VERTS_FILLER_VIEW 64
/* Fillers pack as their hulls up to this times their area; beyond, their
 * pockets and holes (L and U shapes, frames, rings) are worth the
 * arrangements, since smaller islands nest in them. */
#define HULL_WASTE_MAX 1.1
/* Islands in more separate pieces pack as their hull. */
#define MAX_PIECES 4
/* The simplification keeps within this share of the margin (conservative:
 * the shape contains the outline) ... */
#define SIMPLIFY_MARGIN_SHARE 0.25
/* ... and may move by at least this share of the target's side (with a
 * margin near zero it would otherwise keep every vertex). */
#define SIMPLIFY_TOL_MIN 2e-4
/* A lone island's smallest bounding square: a scan of this many angles
 * over a quarter turn (0.25 degree steps), then this many golden-section
 * refinements (the bracket shrinks to 1e-8 of a step). */
#define SQUARE_SCAN_STEPS 360
#define SQUARE_REFINE_STEPS 40

/* -------------------------------------------- the first layout (scale_search.c) */

/* Up to this many islands a fill costs milliseconds: the start bisects its
 * container before the first layout is handed out, side searches and box
 * layouts run, and at a fixed scale every island is annealed.  Beyond it
 * fills take the first window with room (quick fills). */
#define BISECT_AT_START 300
/* The bisection of the bottom-left fill stops within this share of L. */
#define BISECT_TOLERANCE 0.0025
/* The first fill assumes islands grown by half the margin fill this much
 * of the container ... */
#define FIRST_DENSITY 0.8
/* (quick fills, of more than BISECT_AT_START islands, assume less: one
 * that stops short goes on in a slightly larger container, see
 * RESUME_GROW, so a try too dense costs little and its dense prefix is
 * kept, but one much too dense inflates again and starts over.  Synthetic
 * sets of 1,000 and 10,000 islands, margin 0.005: fresh fills complete at
 * about 0.64; a first try at 0.75 stops at 66 % and 90 % of the islands
 * and completes on its first resume, at 0.8 it takes three resumes) */
#define QUICK_FIRST_DENSITY 0.75
/* ... at least this factor above the container of the islands' area ... */
#define FIRST_ABOVE_AREA 1.02
/* ... and each next one the density the last one reached, with this much
 * more room, growing the container by FILL_GROW_MIN to FILL_GROW_MAX. */
#define FILL_ROOM 1.01
#define FILL_GROW_MIN 1.03
#define FILL_GROW_MAX 1.6
/* A quick fill that stopped short goes on (fill_resumes_at) in a
 * container this factor larger, while the inflation holds it. */
#define RESUME_GROW 1.01
/* Containers, each larger, tried by the first fill. */
#define FIRST_TRIES 200
/* The first fills and their bisection may keep islands up to START_GAP
 * (tile units) further apart than the margin, letting L drift at most
 * START_DRIFT below the inflation: every re-inflation recomputes every
 * no-fit polygon (on a dense mesh, 7 of the 9 fills did). */
#define START_GAP 2e-4
#define START_DRIFT 0.2
/* Locked islands leave at least this share of the target free when the
 * grid is sized (an estimate only, never a bound on the scale). */
#define LOCKED_FREE_MIN 0.01
/* Collision-free regions the rescue of a start whose fills all failed may
 * compute (a few times what 4 islands at margin 0.84 need). */
#define RESCUE_WORK 20000

/* ------------------------------------------ the scale search (scale_search.c) */

/* Reheat temperature: this share of an average island's share of the
 * container (accepts losing one about one time in three). */
#ifndef T0_SHARE
#define T0_SHARE 0.15
#endif
/* The temperature cools to this share of T0 over a stall period ... */
#define T_END_SHARE 0.02
/* ... of STALL_BASE + STALL_PER_ISLAND n moves without success (n: the
 * islands annealed). */
#define STALL_BASE 30
#define STALL_PER_ISLAND 6
/* The contact search runs this many times hotter: its moves reorder the
 * sequence, each one a different layout downstream, so its costs differ
 * in larger steps (at the main search's temperature it stalled in the
 * first basin it found: dighe1 stayed at 0.79 with seed 1; 4 times
 * hotter, seeds 0 to 11 all reach 0.999 within 10 s, 3.3 s at the
 * median). */
#define CONTACT_HEAT 4
/* The container aimed at next is the best one less this share: first
 * SCALE_STEP_FIRST, times SCALE_STEP_GROW after each success (at most
 * SCALE_STEP_MAX), halved after a stall; below SCALE_STEP_MIN the search
 * restarts from the best layout with SCALE_STEP_RESTART. */
#define SCALE_STEP_FIRST 0.01
#define SCALE_STEP_GROW 1.25
#define SCALE_STEP_MAX 0.02
#define SCALE_STEP_MIN 0.0005
#define SCALE_STEP_STALL 0.5
#define SCALE_STEP_RESTART (4 * SCALE_STEP_MIN)

/* ---------------------------------------------- annealing moves (anneal.c) */

/* Every parameter (theta, r, f) of every island has its own step, a share
 * of its range [0, 1): widened after an accepted move, narrowed after a
 * rejected one (Martins & Tsuzuki's crystallisation factor). */
#define PARAM_STEP_INIT 0.25
#define PARAM_STEP_MIN 0.002
#define PARAM_STEP_MAX 0.5
#define PARAM_STEP_WIDEN 1.15
#define PARAM_STEP_NARROW 0.92
/* Moves that swap two annealed islands in the sequence (the contact
 * search, whose decode reads no parameter, always does) ... */
#define SWAP_SHARE 0.1
/* ... and of the contact search's, those that take one island to another
 * place in the sequence instead. */
#define INSERT_SHARE 0.5
/* Moves of the aligned search (a contact search with candidates) that pin
 * an island to one of its orientations, or let it choose again: the
 * greedy choice (the orientation that touches the most) is often a wrong
 * one that touches as much, and only the sequence moves otherwise.  Of
 * those on a pinned island, UNPIN_SHARE let it choose again. */
#ifndef PIN_SHARE
#define PIN_SHARE 0.3
#endif
#define UNPIN_SHARE 0.25
/* Rotation moves that take an edge-aligned orientation (an island's
 * candidate, orient.c, or without candidates a quarter turn of its base)
 * rather than a random step: straight edges mostly pack best straight,
 * and a random step never lands exactly on one. */
#ifndef ALIGNED_SHARE
#define ALIGNED_SHARE 0.5
#endif
/* Rotation moves (and, in the aligned search, pins) that take the angle at
 * which one of the island's edges runs against an edge of a neighbour it
 * touches (NEIGHBOUR_SHARE), or that turn it by at most REFINE_MAX_TURN
 * until its edge nearest a neighbour or a wall lies along it
 * (REFINE_SHARE; neighbour_orient.c).  Pieces whose solution has no edge
 * on an axis (18 of the 201 Terashima pieces) fit only at such angles.
 * Both write the island's contact orientations (UN_CONTACT_ORIENTS, the
 * quarter turns of one angle, kept per island); with both shares 0 there
 * are none and the search is the one before them. */
#ifndef NEIGHBOUR_SHARE
#define NEIGHBOUR_SHARE 0.15
#endif
#ifndef REFINE_SHARE
#define REFINE_SHARE 0.1
#endif
#define UN_CONTACT_ORIENTS (NEIGHBOUR_SHARE > 0 || REFINE_SHARE > 0 ? 4 : 0)
/* A refinement turns an island by at most this (radians): a nearly
 * parallel edge pair, not a new orientation. */
#define REFINE_MAX_TURN 0.35   /* 20 degrees */
/* Edges of the neighbours count as touching the island within this many
 * of its inflation radii plus CONTACT_TOL grid units (the placed islands
 * lie at least two radii apart, a margin and the slack). */
#define NEAR_RADII 3

/* ---------------------------------------- placing and filling (decode.c) */

/* How far apart (grid units) two edges may lie and still count as
 * touching, for the contact score.  Far more than the roundings (half a
 * unit each): the inflation keeps a tab out of the socket it was cut from
 * by 2 UN_SLACK across its sloped sides, which holds the straight edges
 * beside it tens of units apart (a 16 degree slope: 21 units). */
#define CONTACT_TOL 64.0
/* The fillers' index of placed islands: cells of 1/FILL_CELLS of the
 * container per side. */
#define FILL_CELLS 64
/* The fillers' windows: about WINDOW_FILLERS typical fillers across,
 * WINDOW_MIN to WINDOW_MAX per side.  A window is skipped for everyone
 * once WINDOW_DEAD islands in a row failed there (with one container
 * only): a heuristic for the small islands, it can only cost density,
 * never validity. */
#define WINDOW_FILLERS 3
#define WINDOW_MIN 2
#define WINDOW_MAX 96
#define WINDOW_DEAD 4

/* ---------------------------------------- fixed scale and tiles (fixed_scale.c) */

/* Reheat temperature of the fixed-scale search (its cost is containers
 * used less their fill, so a move changes it by a fraction of one). */
#define FIXED_T0 0.05
/* Moves a fixed-scale start may anneal when its first fit fails the final
 * check (seed 100397 of the fuzz: 2). */
#define FIXED_RESCUE_MOVES 200
/* A fixed-scale layout is better when its cost is lower by more than this
 * (costs of equal layouts differ in their roundings only). */
#define FIXED_COST_EPS 1e-12
/* Share of a container a group may expect to fill: a group goes whole into
 * a container only where its area fits within this share of what is left. */
#define GROUP_FILL 0.75
/* The cost of a fixed-scale layout: containers used - sum(U^2) / containers
 * used, plus LEFT_OUT_COST per container's worth of islands left out, plus
 * GROUP_SPLIT_COST per affinity group spread over several containers (more
 * than a container and any fill: a group stays whole whenever it fits a
 * container). */
#define LEFT_OUT_COST 10
#define GROUP_SPLIT_COST 2.0

/* ---------------------------------------------------- boxes (boxes.c) */

/* More rectangles than this go on shelves only (shelves.c: a scan of the
 * shelves per placement), not on the skyline too, whose every placement
 * scans the whole skyline (10,000 islands took 90 s). */
#define BOX_SHELF_AT 1000
/* Rectangles are grown by half the margin and this many grid steps (the
 * roundings between the grid and the boxes). */
#define BOX_CLEARANCE 4
/* Each order's containers: from BOX_FIRST_GROW times the area's, each
 * BOX_GROW times the last (at most BOX_TRIES), then bisected to within
 * BOX_TOLERANCE of L (the skyline is cheap, a few milliseconds a fill). */
#define BOX_FIRST_GROW 1.02
#define BOX_GROW 1.1
#define BOX_TRIES 200
#define BOX_TOLERANCE 0.001
/* No-fit polygon cache of a box packer: the skyline computes no regions. */
#define BOX_CACHE_BYTES (1 << 20)

/* ------------------------------------------- side searches (side_search.c) */

/* The side search's share of the work: SIDE_AHEAD while it is ahead of the
 * main search, SIDE_NEAR while its best container is within SIDE_CLOSE of
 * the main search's, SIDE_FAR when further behind (islands that gain from
 * turning or from (r, f): the main search needs the time); and
 * SIDE_CACHE_SHARE of the cache budget. */
#define SIDE_AHEAD 0.75
#define SIDE_NEAR 0.5
#define SIDE_CLOSE 1.10
#define SIDE_FAR 0.125
#define SIDE_CACHE_SHARE 0.25
/* The contact search runs up to this many islands and vertices in the
 * annealed ones (the puzzles have up to 85, homedecor models up to 264);
 * its contact scores count as one region computed per CONTACT_PAIRS edge
 * pairs compared. */
#define CONTACT_MAX 64
#define CONTACT_VERTS 2000
#define CONTACT_PAIRS 20000.0
/* The aligned search runs up to this many islands: its decodes try 25
 * orientations per island, and on the terashima puzzles of 13 to 20 pieces
 * (as given) its start and moves took enough of the as-given searches'
 * share to cost them up to 0.15 of the optimum at 3 s (TC026 0.95 -> 0.80),
 * while on those of 3 to 10 pieces nothing was lost. */
#define ALIGNED_MAX 12
/* ... and at most this many vertices in the annealed islands: each
 * placement tries up to 25 orientations, so its contact scores cost up to
 * that many times the contact search's (CONTACT_VERTS); the terashima
 * puzzles have at most 100 */
#define ALIGNED_VERTS 600
/* The aligned search's start is given up (cancelled) once its contact
 * scores have compared this many edge pairs: a cancelled start begins its
 * fill again, and a fill that never ends within a caller's time slice
 * (50 ms in Packer.improvements) would hold the search there for good.
 * synthetic-10 compared 180 million in 3 s without finishing one fill
 * (0.20 at 5 s against 0.34 without the aligned search); the turned
 * terashima puzzles 0.1 to 2.3 million before their first layout. */
#define ALIGNED_START_PAIRS 10000000
/* Islands holding less than this share of the area straight as given (an
 * edge on an axis within STRAIGHT_TOLERANCE radians) are taken as turned:
 * the aligned search replaces the as-given ones, which would find nothing
 * (on the turned terashima puzzles no island is straight; as given, 91 %
 * of the pieces are) */
#define STRAIGHT_SHARE 0.5
#define STRAIGHT_TOLERANCE 1e-6

/* --------------------------------------------- parallel chains (chains.c) */

/* A round of the parallel search is this many stall periods: each chain
 * restarts from its own best once or twice on its own, then the best
 * layout of all chains migrates. */
#define ROUND_STALLS 2
/* A search bounded by time (a free run, chains.c) hands its chains to the
 * threads for up to this many rounds at once and migrates at the end: per
 * round, the hand-off, the other chains' halt in the middle of a move and
 * the join cost about as much as the moves where moves take microseconds
 * (homedecor_calendar: 96-move rounds of 20 us moves, 2 ms; moves/s x0.99
 * at 2 threads with a fork and join per round). */
#define FREE_SECTION_ROUNDS 8
/* Chains times islands at most: every chain holds the islands, their
 * shapes and a decode's arrays, about 35 KB per island and chain (1,000
 * synthetic islands: peak 88 MB with one chain, 123 MB with two, 192 MB
 * with four).  The extra chains thus cost at most about 0.7 GB: 10,000
 * islands get two chains, 20,000 and more one. */
#define CHAIN_ISLANDS 20000

#endif /* UVNEST_TUNING_H */
