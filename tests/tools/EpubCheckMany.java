// EpubCheckMany: runs EPUBCheck (Debian's /usr/share/java/epubcheck.jar) on
// several EPUBs in one JVM, since each start costs seconds. Prints each
// file's messages and a line "FILE: N errors, M warnings"; exits 1 when any
// file has an error, a fatal error or a warning. Run in source-file mode:
//   java -cp /usr/share/java/epubcheck.jar tests/tools/EpubCheckMany.java A.epub B.epub
import com.adobe.epubcheck.api.EpubCheck;
import com.adobe.epubcheck.util.WriterReportImpl;
import java.io.File;
import java.io.PrintWriter;

public class EpubCheckMany {
  public static void main(String[] args) {
    boolean bad = false;
    PrintWriter out = new PrintWriter(System.out, true);
    for (String path : args) {
      WriterReportImpl report = new WriterReportImpl(out, path, true);
      report.setReportingLevel(com.adobe.epubcheck.util.ReportingLevel.Warning);
      new EpubCheck(new File(path), report).doValidate();
      int e = report.getErrorCount() + report.getFatalErrorCount();
      int w = report.getWarningCount();
      out.printf("%s: %d errors, %d warnings%n", path, e, w);
      bad |= e > 0 || w > 0;
    }
    out.flush();
    System.exit(bad ? 1 : 0);
  }
}
