# Sourced by bench.sh and build-sim.sh: sets up ccache for Verilator's C++
# compiles and returns 0 when ccache is there (`make deps` installs it).
#
# The cache is the user's (ccache's own default directory, or CCACHE_DIR if
# set), not the clone's build/: the Verilated C++ of the same RTL is the same
# in every clone, so a fresh clone of an unchanged tree compiles from the
# cache. CCACHE_BASEDIR makes the clone's absolute paths relative, so that
# clones in different directories share entries. A changed source or flag
# misses and compiles as usual: the cache never changes what is built.
command -v ccache >/dev/null 2>&1 || return 1
export CCACHE_BASEDIR="$root"
export CCACHE_NOHASHDIR=1
return 0
