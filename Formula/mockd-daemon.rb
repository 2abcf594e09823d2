# Homebrew formula for the mockd daemon (local mock HTTP server for app UI tests).
#
# Named `mockd-daemon`, not `mockd`: another open-source project ships a binary named `mockd` through its own tap,
# and a formula named `mockd` in two taps lets `brew install mockd` resolve to whichever tap is installed. Install
# it by its full name, which no other tap can answer:
#
#   brew tap your-org/mockd https://github.com/your-org/mockd
#   brew install your-org/mockd/mockd-daemon
#
# The binary is still called `mockd`; if the other project's formula is installed too, `brew link` refuses to
# overwrite its `mockd` rather than replacing it silently.
class MockdDaemon < Formula
  desc "Local mock HTTP server for UI tests: HAR/WireMock import, scenarios, sessions"
  homepage "https://github.com/your-org/mockd"
  url "https://github.com/your-org/mockd/archive/refs/tags/v0.1.0.tar.gz"
  # Set when the v0.1.0 tag is published: `shasum -a 256 mockd-0.1.0.tar.gz`.
  sha256 "0000000000000000000000000000000000000000000000000000000000000000"
  license "Apache-2.0"
  head "https://github.com/your-org/mockd.git", branch: "main"

  depends_on "pkgconf" => :build
  # Swift 6 comes with Xcode 16 or later (or its Command Line Tools).
  depends_on xcode: ["16.0", :build]
  depends_on "brotli"
  depends_on "libmicrohttpd" # brings GnuTLS for --tls-cert/--tls-key
  depends_on "libyaml"
  depends_on :macos # Linux users build from source or use the container image
  # The PEM check of --tls-cert/--tls-key; SHA-1 comes from CommonCrypto, zlib and libcurl from macOS.
  depends_on "openssl@3"

  def install
    # openssl@3 is keg-only: let pkg-config find its libcrypto.pc.
    ENV.prepend_path "PKG_CONFIG_PATH", Formula["openssl@3"].opt_lib/"pkgconfig"
    system "swift", "build", "--disable-sandbox", "-c", "release", "--product", "mockd"
    bin.install ".build/release/mockd"
    # The bundled example sets (configs/, mocks/) double as documentation.
    pkgshare.install "configs", "mocks"
  end

  test do
    assert_match version.to_s, shell_output("#{bin}/mockd --version")

    (testpath/"mocks/tiny/index.json").write <<~JSON
      {"version": 1, "stubs": [{"id": "hello", "request": {"method": "GET", "path": "/hello"},
        "responses": [{"status": 200, "headers": ["Content-Type: text/plain"], "body": "hi from mockd"}]}]}
    JSON
    port = free_port
    pid = spawn bin/"mockd", "--set", "tiny", "--root", testpath, "--port", port.to_s, "--quiet"
    begin
      # Ready when health answers (mockd binds before it prints "listening on").
      ready = false
      50.times do
        ready = quiet_system "curl", "-fs", "http://127.0.0.1:#{port}/__mockd/health"
        break if ready

        sleep 0.1
      end
      assert ready, "mockd did not answer /__mockd/health"
      assert_equal "hi from mockd", shell_output("curl -fs http://127.0.0.1:#{port}/hello")
    ensure
      Process.kill("TERM", pid)
      Process.wait(pid)
    end
  end
end
