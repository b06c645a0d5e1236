package org.apache.storm.security.serialization;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.security.GeneralSecurityException;
import java.util.Map;
import javax.crypto.Cipher;
import javax.crypto.KeyGenerator;
import javax.crypto.spec.SecretKeySpec;
import org.apache.storm.serialization.types.ListDelegateSerializer;
import org.apache.storm.utils.ListDelegate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@code topology.tuple.serializer} that encrypts a tuple's values with Blowfish: the key is
 * {@value #SECRET_KEY} in hex (or, when that is absent, {@code storm.zookeeper.topology.auth.payload}).
 * {@link #main} prints a new random key.
 *
 * <p>Egret's data plane carries each tuple's values in its own frames, not as one
 * {@code ListDelegate}, so this serializer encrypts only where a caller uses the Kryo from
 * {@code SerializationFactory.getKryo} on a {@code ListDelegate} itself.
 */
public class BlowfishTupleSerializer extends Serializer<ListDelegate> {
    public static final String SECRET_KEY = "topology.tuple.serializer.blowfish.key";
    private static final Logger LOG = LoggerFactory.getLogger(BlowfishTupleSerializer.class);
    private static final String ZK_PAYLOAD = "storm.zookeeper.topology.auth.payload";

    private final ListDelegateSerializer plain = new ListDelegateSerializer();
    private final SecretKeySpec key;

    public BlowfishTupleSerializer(Kryo kryo, Map<String, Object> topoConf) {
        Object hex = topoConf.get(SECRET_KEY);
        if (hex == null) {
            hex = topoConf.get(ZK_PAYLOAD);
            if (hex != null) {
                LOG.debug("{} is not present. Use {} as Blowfish encryption key", SECRET_KEY, ZK_PAYLOAD);
            }
        }
        if (hex == null) {
            throw new RuntimeException("Blowfish encryption key not specified (" + SECRET_KEY + ")");
        }
        try {
            byte[] bytes = decodeHex(hex.toString());
            this.key = new SecretKeySpec(bytes, "Blowfish");
            Cipher.getInstance("Blowfish").init(Cipher.ENCRYPT_MODE, key);
        } catch (IllegalArgumentException | GeneralSecurityException e) {
            throw new RuntimeException("Blowfish encryption key invalid (" + SECRET_KEY + " must be hex digits)", e);
        }
    }

    /** Prints a new random key, in hex, for {@value #SECRET_KEY}. */
    public static void main(String[] args) throws GeneralSecurityException {
        KeyGenerator gen = KeyGenerator.getInstance("Blowfish");
        gen.init(128);
        byte[] raw = gen.generateKey().getEncoded();
        StringBuilder sb = new StringBuilder();
        for (byte b : raw) {
            sb.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
        }
        System.out.println(SECRET_KEY + ": \"" + sb + "\"");
    }

    @Override
    public void write(Kryo kryo, Output output, ListDelegate object) {
        Output buffer = new Output(256, -1);
        plain.write(kryo, buffer, object);
        byte[] encrypted = crypt(Cipher.ENCRYPT_MODE, buffer.toBytes());
        output.writeInt(encrypted.length, true);
        output.writeBytes(encrypted);
    }

    @Override
    public ListDelegate read(Kryo kryo, Input input, Class<? extends ListDelegate> type) {
        int length = input.readInt(true);
        byte[] decrypted = crypt(Cipher.DECRYPT_MODE, input.readBytes(length));
        return plain.read(kryo, new Input(decrypted), type);
    }

    private byte[] crypt(int mode, byte[] data) {
        try {
            Cipher cipher = Cipher.getInstance("Blowfish");
            cipher.init(mode, key);
            return cipher.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new RuntimeException("Blowfish " + (mode == Cipher.ENCRYPT_MODE ? "encryption" : "decryption")
                    + " of a tuple failed", e);
        }
    }

    private static byte[] decodeHex(String hex) {
        if (hex.length() % 2 != 0 || hex.isEmpty()) {
            throw new IllegalArgumentException("an even, non-zero number of hex digits is needed");
        }
        byte[] ret = new byte[hex.length() / 2];
        for (int i = 0; i < ret.length; i++) {
            int hi = Character.digit(hex.charAt(2 * i), 16);
            int lo = Character.digit(hex.charAt(2 * i + 1), 16);
            if (hi < 0 || lo < 0) {
                throw new IllegalArgumentException("not a hex digit in " + hex);
            }
            ret[i] = (byte) ((hi << 4) | lo);
        }
        return ret;
    }
}
