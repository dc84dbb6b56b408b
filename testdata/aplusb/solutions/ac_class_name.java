// Expected: AC. Neither the class nor its package is Main: the compile step
// renames Main.java after the public class and finds the class with
// public static void main, as DOMjudge, Kattis and DMOJ do. The nested
// class's main is not the one that runs.
package contest.aplusb;

import java.io.*;
import java.util.*;

public final class Solution {
    static class Helper {
        public static void main(String[] args) {
            System.out.println("wrong main");
        }
    }

    public static void main(String... args) throws IOException {
        StringTokenizer st = new StringTokenizer(new BufferedReader(new InputStreamReader(System.in)).readLine());
        System.out.println(Long.parseLong(st.nextToken()) + Long.parseLong(st.nextToken()));
    }
}
