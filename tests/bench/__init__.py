"""The uvnest benchmark: uvnest against Blender's Pack Islands and xatlas on the same islands.

Modules:

* ``common`` - the packing input (``Model``) and a packer's answer (``PackOutcome``);
* ``checker`` - the one independent, shapely-based layout checker and coverage measure;
* ``peers_blender`` + ``blender_pack_script`` - Blender 5.0.1 ``uv.pack_islands`` in its own process;
* ``peers_xatlas`` - xatlas with a texels-per-unit search for the one-tile scale;
* ``peers_uvnest`` - ``uvnest.pack`` and the ``uvnest.Packer`` coverage-over-time curve;
* ``corpus_islands``, ``puzzles``, ``synthetic`` - the inputs;
* ``report``, ``run`` - results, markdown, plots, and the command line (``python -m tests.bench``);
* ``bounds`` - the coverage no packer can exceed (the largest island alone, pairs of the largest), per homedecor model of a run.
"""
