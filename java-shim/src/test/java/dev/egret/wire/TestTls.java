package dev.egret.wire;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocket;

/**
 * The test fixtures' credentials ({@code src/test/resources/dev/egret/tls/<name>/}, see the
 * README there): {@code topology} and {@code other}, two topologies' key material.
 */
public final class TestTls {
    private static final String[] FILES = {"token", "ca.pem", "cert.pem", "key.pem"};

    private TestTls() {}

    /** Copies fixture {@code name} to {@code topologyDir/credentials/} (0700, files 0600). */
    public static Path install(Path topologyDir, String name) throws IOException {
        Path dir = topologyDir.resolve("credentials");
        Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        for (String file : FILES) {
            try (InputStream in = resource(name, file)) {
                Path target = dir.resolve(file);
                Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
                Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rw-------"));
            }
        }
        return dir;
    }

    /** The token of fixture {@code name}. */
    public static byte[] token(String name) {
        try (InputStream in = resource(name, "token")) {
            return java.util.HexFormat.of().parseHex(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII).strip());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A TLS server socket on loopback presenting fixture {@code name}'s certificate and
     * requiring a client certificate of its CA, as a topology master does.
     */
    public static SSLServerSocket listen(Path scratch, String name) throws IOException {
        Path dir = install(scratch.resolve("server-" + name), name);
        SSLServerSocket server = (SSLServerSocket) TopologyTls.context(dir).getServerSocketFactory().createServerSocket();
        SSLParameters params = server.getSSLParameters();
        params.setProtocols(new String[] {TopologyTls.PROTOCOL});
        params.setNeedClientAuth(true);
        server.setSSLParameters(params);
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        return server;
    }

    private static InputStream resource(String name, String file) throws IOException {
        InputStream in = TestTls.class.getResourceAsStream("/dev/egret/tls/" + name + "/" + file);
        if (in == null) {
            throw new IOException("no test fixture dev/egret/tls/" + name + "/" + file);
        }
        return in;
    }
}
