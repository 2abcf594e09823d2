# mockd as a CI service container. Two stages: a release build with the Swift standard library and
# Foundation linked statically, then debian:bookworm-slim with only the shared libraries the binary needs.
# scripts/container-smoke reproduces the runtime stage's layout without a container engine and checks it
# (and that the package list below covers what the binary links).
#
#   docker build -t mockd .
#   docker run --rm -p 8080:8080 mockd                          # the bundled chat example
#   docker run --rm -p 8080:8080 -v "$PWD:/mocks:ro" -e MOCKD_CONFIG=my_scenario mockd

# Build stage: the official Swift image for Swift 6.3 on Debian 12 "bookworm" (the `<version>-bookworm`
# tags, built from swiftlang/swift-docker's 6.3/debian/12), the toolchain and Debian release mockd is
# developed and tested on; 6.3 follows the 6.3.x patch releases (6.3.1 at the time of writing).
FROM swift:6.3-bookworm AS build
WORKDIR /src
COPY scripts/install-deps scripts/install-deps
RUN scripts/install-deps && rm -rf /var/lib/apt/lists/*
COPY Package.swift ./
COPY Sources Sources
COPY Tests Tests
# --static-swift-stdlib: the Swift runtime and Foundation are inside the binary, so the runtime image
# needs no /usr/lib/swift libraries.
RUN swift build -c release --static-swift-stdlib --product mockd \
    && install -D -m 0755 "$(swift build -c release --static-swift-stdlib --show-bin-path)/mockd" /out/mockd \
    && strip /out/mockd

# Runtime stage. `readelf -d mockd` lists libmicrohttpd.so.12 (libmicrohttpd12), libcrypto.so.3 (libssl3:
# SHA-1 for the WebSocket handshake), libz.so.1 (zlib1g) and libbrotlidec.so.1 (libbrotli1) for HAR bodies
# recorded compressed, libyaml-0.so.2 (libyaml-0-2: OpenAPI documents in YAML), libcurl.so.4 (libcurl4: the upstream client of `mockd record` and --on-miss proxy,
# with ca-certificates so an HTTPS upstream is verified), libstdc++.so.6 (libstdc++6, for the static Swift runtime), and libgcc_s, libm, libc
# (libgcc-s1, libc6: already in the base image).
FROM debian:bookworm-slim
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libmicrohttpd12 libssl3 libcurl4 ca-certificates zlib1g libbrotli1 libyaml-0-2 libstdc++6 \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 mockd \
    && useradd --system --uid 10001 --gid mockd --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin mockd
COPY --from=build /out/mockd /usr/local/bin/mockd
# MOCKD_ROOT holds mocks/ and configs/: the bundled example, replaced by mounting a folder (or a volume)
# with your own at /mocks, or by COPYing them there in an image built FROM this one.
COPY mocks /mocks/mocks
COPY configs /mocks/configs
# A service container's network is the CI job's own, so the control API needs no token there; outside CI set
# MOCKD_CONTROL_TOKEN (and MOCKD_INSECURE_CONTROL=0) so nobody else on the network can steer mockd.
ENV MOCKD_ROOT=/mocks \
    MOCKD_HOST=0.0.0.0 \
    MOCKD_INSECURE_CONTROL=1 \
    MOCKD_PORT=8080 \
    MOCKD_CONFIG=chat_happy_path
VOLUME ["/mocks"]
USER mockd
EXPOSE 8080
# SIGTERM (docker stop) stops gracefully: requests in flight get up to --shutdown-timeout (5 s by default,
# under docker stop's 10 s) to finish, then mockd exits 0.
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=5s --timeout=3s --start-period=5s --retries=3 CMD ["mockd", "health", "--timeout", "2"]
ENTRYPOINT ["mockd"]
