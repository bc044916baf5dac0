# Every third-party dependency, found in one place. All of them are Debian bookworm packages
# (scripts/setup installs them); nothing is vendored or downloaded at build time.
find_package(GTest REQUIRED)                 # googletest, libgtest-dev
find_package(RocksDB REQUIRED)               # librocksdb-dev 7.8.3 -> RocksDB::rocksdb
find_package(rapidcheck REQUIRED)            # librapidcheck-dev; gtest glue is rapidcheck/gtest.h
find_package(fmt REQUIRED)                   # libfmt-dev
find_package(benchmark REQUIRED)             # libbenchmark-dev
find_package(Boost 1.81 REQUIRED)            # libboost1.81-dev (header-only Asio)
find_package(Threads REQUIRED)
find_package(tomlplusplus REQUIRED)          # libtomlplusplus-dev 3.3 (scenario files)
find_package(PkgConfig REQUIRED)          # pkg-config
# libgraphviz-dev: reports/ lays out and renders DOT to SVG in-process (gvLayout, gvRenderData).
pkg_check_modules(GVC REQUIRED IMPORTED_TARGET libgvc libcgraph)   # -> PkgConfig::GVC
