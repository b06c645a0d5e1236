package dev.egret.wire;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * The TLS layer under a topology's TCP links, Java side (the Rust side is
 * {@code egret_transport}): a topology's credentials directory ({@code token}, {@code ca.pem},
 * {@code cert.pem}, {@code key.pem}: see docs/internals/contracts.md, "Credentials") becomes an
 * {@link SSLContext} that presents the topology's certificate and trusts only the topology's
 * CA; connections are TLS 1.3 only, mutually authenticated, and check the peer's certificate
 * for {@link #SERVER_NAME}. The hello then runs inside the TLS connection, unchanged.
 */
public final class TopologyTls {
    /** The name in every topology certificate's subject alternative names, which clients check. */
    public static final String SERVER_NAME = "egret-topology";
    /** The only protocol version offered or accepted. */
    public static final String PROTOCOL = "TLSv1.3";

    private static final Pattern PEM = Pattern.compile(
            "-----BEGIN ([A-Z ]+)-----([A-Za-z0-9+/=\\s]+)-----END \\1-----");
    private static final char[] NO_PASSWORD = new char[0];

    private TopologyTls() {}

    /** The token of the credentials directory {@code dir}. */
    public static byte[] token(Path dir) throws IOException {
        Path file = dir.resolve("token");
        try {
            return HexFormat.of().parseHex(Files.readString(file, StandardCharsets.UTF_8).strip());
        } catch (IllegalArgumentException e) {
            throw new IOException(file + ": not a token (" + e.getMessage() + ")", e);
        }
    }

    /** An SSL context of the topology whose credentials directory is {@code dir}. */
    public static SSLContext context(Path dir) throws IOException {
        Path caFile = dir.resolve("ca.pem");
        Path certFile = dir.resolve("cert.pem");
        Path keyFile = dir.resolve("key.pem");
        List<Certificate> ca = certificates(caFile);
        List<Certificate> chain = certificates(certFile);
        PrivateKey key = privateKey(keyFile);
        try {
            KeyStore trusted = KeyStore.getInstance("PKCS12");
            trusted.load(null, null);
            for (int i = 0; i < ca.size(); i++) {
                trusted.setCertificateEntry("ca-" + i, ca.get(i));
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trusted);
            KeyStore own = KeyStore.getInstance("PKCS12");
            own.load(null, null);
            own.setKeyEntry("topology", key, NO_PASSWORD, chain.toArray(new Certificate[0]));
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(own, NO_PASSWORD);
            SSLContext context = SSLContext.getInstance(PROTOCOL);
            context.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IOException("the credentials in " + dir + " are not usable: " + e.getMessage(), e);
        }
    }

    /**
     * Connects to {@code address} over TCP and completes the TLS handshake as a client, all
     * within {@code timeoutMillis} for the connect and for each read after it.
     */
    public static FrameChannel connect(SSLContext context, InetSocketAddress address, int maxFrameBytes,
            int timeoutMillis) throws IOException {
        Socket tcp = new Socket();
        try {
            tcp.setTcpNoDelay(true);
            tcp.connect(address, timeoutMillis);
            tcp.setSoTimeout(timeoutMillis);
            // The layered socket's host is the name to check: topology names need not be DNS names.
            SSLSocket tls = (SSLSocket) context.getSocketFactory().createSocket(tcp, SERVER_NAME, address.getPort(), true);
            try {
                tls.setUseClientMode(true);
                SSLParameters params = tls.getSSLParameters();
                params.setProtocols(new String[] {PROTOCOL});
                params.setEndpointIdentificationAlgorithm("HTTPS");
                tls.setSSLParameters(params);
                tls.startHandshake();
                return FrameChannel.overSocket(tls, maxFrameBytes);
            } catch (IOException | RuntimeException e) {
                tls.close();
                throw new IOException("TLS handshake with " + address + " failed: " + e.getMessage(), e);
            }
        } catch (IOException | RuntimeException e) {
            tcp.close();
            throw e;
        }
    }

    private static List<byte[]> pemBlocks(Path file, String type) throws IOException {
        String text = Files.readString(file, StandardCharsets.US_ASCII);
        List<byte[]> blocks = new ArrayList<>();
        Matcher m = PEM.matcher(text);
        while (m.find()) {
            if (m.group(1).equals(type)) {
                try {
                    blocks.add(Base64.getMimeDecoder().decode(m.group(2)));
                } catch (IllegalArgumentException e) {
                    throw new IOException(file + ": a " + type + " block is not base64", e);
                }
            }
        }
        if (blocks.isEmpty()) {
            throw new IOException(file + ": holds no PEM " + type);
        }
        return blocks;
    }

    private static List<Certificate> certificates(Path file) throws IOException {
        List<Certificate> certs = new ArrayList<>();
        try {
            CertificateFactory factory = CertificateFactory.getInstance("X.509");
            for (byte[] der : pemBlocks(file, "CERTIFICATE")) {
                certs.add(factory.generateCertificate(new ByteArrayInputStream(der)));
            }
        } catch (GeneralSecurityException e) {
            throw new IOException(file + ": not an X.509 certificate: " + e.getMessage(), e);
        }
        return certs;
    }

    /** A PKCS#8 key ({@code PRIVATE KEY}): EC (what Egret generates), else RSA. */
    private static PrivateKey privateKey(Path file) throws IOException {
        byte[] der = pemBlocks(file, "PRIVATE KEY").get(0);
        GeneralSecurityException last = null;
        for (String algorithm : new String[] {"EC", "RSA", "Ed25519"}) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException e) {
                last = e;
            }
        }
        throw new IOException(file + ": not a PKCS#8 EC, RSA or Ed25519 private key: " + last.getMessage(), last);
    }
}
