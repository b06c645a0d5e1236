package org.apache.storm.utils;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;

/** Lenient readers for config values, which may arrive as Integer, Long, Double or String. */
public class ObjectReader {

    public ObjectReader() {
    }

    public static List<String> getStrings(final Object o) {
        if (o == null) {
            return new ArrayList<>();
        } else if (o instanceof String) {
            return Collections.singletonList((String) o);
        } else if (o instanceof Collection) {
            List<String> ret = new ArrayList<>();
            for (Object v : (Collection<?>) o) {
                ret.add(v.toString());
            }
            return ret;
        } else {
            throw new IllegalArgumentException("Don't know how to convert " + o + " to string list");
        }
    }

    public static String getString(Object o) {
        if (o == null) {
            throw new IllegalArgumentException("Don't know how to convert null to String");
        }
        return o.toString();
    }

    public static String getString(Object o, String defaultValue) {
        return o == null ? defaultValue : o.toString();
    }

    public static Integer getInt(Object o) {
        return getInt(o, null);
    }

    public static Integer getInt(Object o, Integer defaultValue) {
        if (o == null) {
            if (defaultValue == null) {
                throw new IllegalArgumentException("Don't know how to convert null to int");
            }
            return defaultValue;
        }
        if (o instanceof Integer || o instanceof Short || o instanceof Byte) {
            return ((Number) o).intValue();
        }
        if (o instanceof Long) {
            long l = (Long) o;
            if (l <= Integer.MAX_VALUE && l >= Integer.MIN_VALUE) {
                return (int) l;
            }
        } else if (o instanceof Double || o instanceof Float) {
            double d = ((Number) o).doubleValue();
            if (d == Math.rint(d) && d <= Integer.MAX_VALUE && d >= Integer.MIN_VALUE) {
                return (int) d;
            }
        } else if (o instanceof Number) {
            return ((Number) o).intValue();
        } else if (o instanceof String) {
            try {
                return Integer.parseInt(((String) o).trim());
            } catch (NumberFormatException e) {
                // fall through to the error below
            }
        }
        throw new IllegalArgumentException("Don't know how to convert " + o + " to int");
    }

    public static Long getLong(Object o) {
        return getLong(o, null);
    }

    public static Long getLong(Object o, Long defaultValue) {
        if (o == null) {
            return defaultValue;
        }
        if (o instanceof Number) {
            return ((Number) o).longValue();
        }
        if (o instanceof String) {
            try {
                return Long.valueOf(((String) o).trim());
            } catch (NumberFormatException e) {
                // fall through to the error below
            }
        }
        throw new IllegalArgumentException("Don't know how to convert " + o + " to long");
    }

    public static Double getDouble(Object o) {
        Double result = getDouble(o, null);
        if (result == null) {
            throw new IllegalArgumentException("Don't know how to convert null to double");
        }
        return result;
    }

    public static Double getDouble(Object o, Double defaultValue) {
        if (o == null) {
            return defaultValue;
        }
        if (o instanceof Number) {
            return ((Number) o).doubleValue();
        }
        if (o instanceof String) {
            try {
                return Double.valueOf(((String) o).trim());
            } catch (NumberFormatException e) {
                // fall through to the error below
            }
        }
        throw new IllegalArgumentException("Don't know how to convert " + o + " to double");
    }

    public static boolean getBoolean(Object o, boolean defaultValue) {
        if (o == null) {
            return defaultValue;
        }
        if (o instanceof Boolean) {
            return (Boolean) o;
        }
        if (o instanceof String) {
            String s = ((String) o).trim();
            if (s.equalsIgnoreCase("true")) {
                return true;
            }
            if (s.equalsIgnoreCase("false")) {
                return false;
            }
        }
        throw new IllegalArgumentException("Don't know how to convert " + o + " to boolean");
    }
}
